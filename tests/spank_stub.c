/* spank_stub.c - a fake of the SPANK API that spank_denpex.so calls, so that
 * the plugin can be unit tested (check_spank) and dlopen()ed (dlopen_plugin)
 * without Slurm. The test drives it through the stub_* functions below:
 * the context, the job/task items, the job environment (spank_getenv /
 * spank_setenv), the job control environment, and a log of slurm_* messages.
 */
#include <slurm/spank.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The project compiles C with -fvisibility=hidden; dlopen_plugin exports these
 * (-export-dynamic) so that the plugin's references resolve against them. */
#pragma GCC visibility push(default)

#define STUB_ENV_MAX 64
#define STUB_VAL_MAX 1024

struct spank_handle {
	int sh_magic;
};

struct stub_var {
	char name[128];
	char value[STUB_VAL_MAX];
};

static struct spank_handle stub_handle = {0x5eed};
static spank_context_t stub_ctx = S_CTX_REMOTE;
static struct stub_var stub_env[STUB_ENV_MAX];
static int stub_nenv;
static struct stub_var stub_ctl[STUB_ENV_MAX];
static int stub_nctl;
static char stub_logbuf[65536];
static struct spank_option *stub_opts[8];
static int stub_nopts;
static int stub_in_task;
static int stub_items_fail;

/* Job and task items, settable by the test. */
uint32_t stub_job_id = 42, stub_step_id = 0, stub_nnodes = 2, stub_node_id = 1;
uint32_t stub_total_tasks = 4, stub_local_tasks = 2, stub_global_id = 3;
uid_t stub_uid = 0;
gid_t stub_gid = 0;
int stub_task_id = 1, stub_exit_status = 0;
pid_t stub_task_pid = 4242;

spank_t stub_spank(void)
{
	return &stub_handle;
}

void stub_reset(void)
{
	stub_ctx = S_CTX_REMOTE;
	stub_nenv = stub_nctl = stub_nopts = 0;
	stub_logbuf[0] = '\0';
	stub_in_task = 0;
	stub_items_fail = 0;
	stub_job_id = 42;
	stub_step_id = 0;
	stub_nnodes = 2;
	stub_node_id = 1;
	stub_total_tasks = 4;
	stub_local_tasks = 2;
	stub_global_id = 3;
	stub_uid = 0;
	stub_gid = 0;
	stub_task_id = 1;
	stub_exit_status = 0;
	stub_task_pid = 4242;
}

void stub_set_context(spank_context_t ctx)
{
	stub_ctx = ctx;
}

void stub_set_in_task(int in_task)
{
	stub_in_task = in_task;
}

void stub_set_items_fail(int fail)
{
	stub_items_fail = fail;
}

static struct stub_var *find(struct stub_var *vars, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(vars[i].name, name) == 0)
			return &vars[i];
	return NULL;
}

static int put(struct stub_var *vars, int *n, const char *name, const char *value)
{
	struct stub_var *v = find(vars, *n, name);
	if (v == NULL) {
		if (*n >= STUB_ENV_MAX)
			return -1;
		v = &vars[(*n)++];
		snprintf(v->name, sizeof(v->name), "%s", name);
	}
	snprintf(v->value, sizeof(v->value), "%s", value);
	return 0;
}

/* The job environment as the user left it. */
void stub_env_set(const char *name, const char *value)
{
	put(stub_env, &stub_nenv, name, value);
}

const char *stub_env_get(const char *name)
{
	struct stub_var *v = find(stub_env, stub_nenv, name);
	return v ? v->value : NULL;
}

int stub_env_count(void)
{
	return stub_nenv;
}

const char *stub_ctl_get(const char *name)
{
	struct stub_var *v = find(stub_ctl, stub_nctl, name);
	return v ? v->value : NULL;
}

const char *stub_log(void)
{
	return stub_logbuf;
}

/* Calls the callback of the registered option `name` as Slurm would. */
int stub_option_cb(const char *name, const char *optarg, int remote)
{
	for (int i = 0; i < stub_nopts; i++)
		if (strcmp(stub_opts[i]->name, name) == 0)
			return stub_opts[i]->cb(stub_opts[i]->val, optarg, remote);
	return -99;
}

int stub_option_count(void)
{
	return stub_nopts;
}

/* ------------------------------------------------------------ the fake API */

const char *spank_strerror(spank_err_t err)
{
	switch ((int)err) {
	case ESPANK_SUCCESS: return "Success";
	case ESPANK_ENV_EXISTS: return "Environment variable exists";
	case ESPANK_ENV_NOEXIST: return "No such environment variable";
	case ESPANK_NOSPACE: return "Buffer too small";
	case ESPANK_NOT_TASK: return "Not in task context";
	case ESPANK_NOT_REMOTE: return "Valid only in remote context";
	case ESPANK_NOT_LOCAL: return "Valid only in local or allocator context";
	case ESPANK_NOT_AVAIL: return "Item not available from this callback";
	default: return "Generic error";
	}
}

spank_context_t spank_context(void)
{
	return stub_ctx;
}

int spank_remote(spank_t sp)
{
	(void)sp;
	return stub_ctx == S_CTX_REMOTE;
}

int spank_symbol_supported(const char *symbol)
{
	return symbol != NULL;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	if (sp != &stub_handle || opt == NULL || stub_nopts >= 8)
		return ESPANK_BAD_ARG;
	stub_opts[stub_nopts++] = opt;
	return ESPANK_SUCCESS;
}

spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **optarg)
{
	(void)sp;
	(void)opt;
	(void)optarg;
	return ESPANK_ERROR;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;
	if (sp != &stub_handle)
		return ESPANK_BAD_ARG;
	if (stub_ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (stub_items_fail)
		return ESPANK_NOT_AVAIL;
	va_start(ap, item);
	switch (item) {
	case S_JOB_UID: *va_arg(ap, uid_t *) = stub_uid; break;
	case S_JOB_GID: *va_arg(ap, gid_t *) = stub_gid; break;
	case S_JOB_ID: *va_arg(ap, uint32_t *) = stub_job_id; break;
	case S_JOB_STEPID: *va_arg(ap, uint32_t *) = stub_step_id; break;
	case S_JOB_NNODES: *va_arg(ap, uint32_t *) = stub_nnodes; break;
	case S_JOB_NODEID: *va_arg(ap, uint32_t *) = stub_node_id; break;
	case S_JOB_LOCAL_TASK_COUNT: *va_arg(ap, uint32_t *) = stub_local_tasks; break;
	case S_JOB_TOTAL_TASK_COUNT: *va_arg(ap, uint32_t *) = stub_total_tasks; break;
	case S_TASK_ID:
		if (!stub_in_task)
			rc = ESPANK_NOT_TASK;
		else
			*va_arg(ap, int *) = stub_task_id;
		break;
	case S_TASK_GLOBAL_ID:
		if (!stub_in_task)
			rc = ESPANK_NOT_TASK;
		else
			*va_arg(ap, uint32_t *) = stub_global_id;
		break;
	case S_TASK_EXIT_STATUS:
		if (!stub_in_task)
			rc = ESPANK_NOT_TASK;
		else
			*va_arg(ap, int *) = stub_exit_status;
		break;
	case S_TASK_PID:
		if (!stub_in_task)
			rc = ESPANK_NOT_TASK;
		else
			*va_arg(ap, pid_t *) = stub_task_pid;
		break;
	default: rc = ESPANK_BAD_ARG; break;
	}
	va_end(ap);
	return rc;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	struct stub_var *v;
	if (sp != &stub_handle || var == NULL || buf == NULL || len < 0)
		return ESPANK_BAD_ARG;
	if (stub_ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	v = find(stub_env, stub_nenv, var);
	if (v == NULL)
		return ESPANK_ENV_NOEXIST;
	if ((int)strlen(v->value) >= len) {
		if (len > 0) {
			memcpy(buf, v->value, (size_t)len - 1);
			buf[len - 1] = '\0';
		}
		return ESPANK_NOSPACE;
	}
	strcpy(buf, v->value);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
	if (sp != &stub_handle || var == NULL || val == NULL)
		return ESPANK_BAD_ARG;
	if (stub_ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	if (!overwrite && find(stub_env, stub_nenv, var) != NULL)
		return ESPANK_ENV_EXISTS;
	return put(stub_env, &stub_nenv, var, val) == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
}

spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
	struct stub_var *v;
	if (sp != &stub_handle || var == NULL)
		return ESPANK_BAD_ARG;
	if (stub_ctx != S_CTX_REMOTE)
		return ESPANK_NOT_REMOTE;
	v = find(stub_env, stub_nenv, var);
	if (v != NULL) {
		*v = stub_env[stub_nenv - 1];
		stub_nenv--;
	}
	return ESPANK_SUCCESS;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char *name, const char *value, int overwrite)
{
	if (sp != &stub_handle || name == NULL || value == NULL)
		return ESPANK_BAD_ARG;
	if (stub_ctx != S_CTX_LOCAL && stub_ctx != S_CTX_ALLOCATOR)
		return ESPANK_NOT_LOCAL;
	if (!overwrite && find(stub_ctl, stub_nctl, name) != NULL)
		return ESPANK_ENV_EXISTS;
	return put(stub_ctl, &stub_nctl, name, value) == 0 ? ESPANK_SUCCESS : ESPANK_ERROR;
}

spank_err_t spank_job_control_getenv(spank_t sp, const char *name, char *buf, int len)
{
	struct stub_var *v = find(stub_ctl, stub_nctl, name);
	(void)sp;
	if (v == NULL)
		return ESPANK_ENV_NOEXIST;
	snprintf(buf, (size_t)len, "%s", v->value);
	return ESPANK_SUCCESS;
}

spank_err_t spank_job_control_unsetenv(spank_t sp, const char *name)
{
	(void)sp;
	(void)name;
	return ESPANK_SUCCESS;
}

static void stub_vlog(const char *level, const char *fmt, va_list ap)
{
	size_t n = strlen(stub_logbuf);
	if (n + 2 >= sizeof(stub_logbuf))
		return;
	n += (size_t)snprintf(stub_logbuf + n, sizeof(stub_logbuf) - n, "%s: ", level);
	if (n + 2 >= sizeof(stub_logbuf))
		return;
	n += (size_t)vsnprintf(stub_logbuf + n, sizeof(stub_logbuf) - n, fmt, ap);
	if (n + 2 < sizeof(stub_logbuf))
		strcat(stub_logbuf, "\n");
}

#define STUB_LOGGER(fn, level)                                                 \
	void fn(const char *fmt, ...)                                          \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		stub_vlog(level, fmt, ap);                                     \
		va_end(ap);                                                    \
	}

STUB_LOGGER(slurm_error, "error")
STUB_LOGGER(slurm_info, "info")
STUB_LOGGER(slurm_verbose, "verbose")
STUB_LOGGER(slurm_debug, "debug")
STUB_LOGGER(slurm_debug2, "debug2")
STUB_LOGGER(slurm_debug3, "debug3")
STUB_LOGGER(slurm_spank_log, "spank")

#pragma GCC visibility pop
