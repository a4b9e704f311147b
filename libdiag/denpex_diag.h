/*
 * libdenpexdiag C API: the one door into the diagnosis library for C code
 * and for programs that must not see C++ exceptions (the epilog).
 * Every function is noexcept; errors come back as status codes, with the
 * reason from denpex_last_error().
 */
#ifndef DENPEX_DIAG_H
#define DENPEX_DIAG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DENPEX_API __attribute__((visibility("default")))

typedef enum {
	DENPEX_OK = 0,
	DENPEX_ERR_ARGS = 1,    /* bad arguments */
	DENPEX_ERR_INPUT = 2,   /* nothing usable in the given paths */
	DENPEX_ERR_CONFIG = 3,  /* signature or knowledge files failed to load */
	DENPEX_ERR_INTERNAL = 4,
} denpex_status;

/* Options that can grow: `size` is sizeof(denpex_options) as the caller was
 * compiled, set by denpex_options_init(). The library reads only the fields
 * that fit in it and gives every later field its default, so a caller
 * built against an older header keeps working when options are added here.
 * New fields go at the end, never between. */
typedef struct denpex_options {
	size_t size;
	/* Directory with signatures/ xid.yaml actions.yaml; NULL: the installed one
	 * (or $DENPEX_CONF_DIR). */
	const char *conf_dir;
	/* Most bytes read from one file (head and tail kept); 0: no cap. */
	uint64_t max_bytes_per_file;
	/* Job id to put in the verdict when the logs do not say; NULL: unknown. */
	const char *job_id;
	/* Zone offset (seconds east of UTC) for local times without a zone. */
	int default_tz_offset_s;
	/* Non-zero: refuse to follow symlinks when opening files (O_NOFOLLOW). */
	int no_follow;
	/* Most bytes of the comment line; the cause gives way first, so class,
	 * rank, host and action survive. 0: DENPEX_COMMENT_MAX_BYTES. */
	size_t comment_max_bytes;
} denpex_options;

/* The comment line's length when comment_max_bytes is 0. */
#define DENPEX_COMMENT_MAX_BYTES 250

/* Fills defaults into opts[0], a struct of `size` bytes (sizeof as the caller
 * sees it). Use the denpex_options_init() macro. */
DENPEX_API void denpex_options_init_sized(denpex_options *opts, size_t size);
#define denpex_options_init(opts) denpex_options_init_sized((opts), sizeof(*(opts)))

/* Diagnoses the files and directories in paths[0..npaths). On DENPEX_OK the
 * verdict comes back as JSON (schema 1, as `denpex diagnose --json`), as the
 * text for a person, and as a one-line comment
 * ("denpex: <class> rank R on HOST: <cause> -> <action>"). Each non-NULL out
 * pointer receives a malloc()ed string that the caller frees with
 * denpex_free(). Warnings (skipped files) go to *warnings, newline-separated. */
DENPEX_API denpex_status denpex_diagnose_paths(const char *const *paths, size_t npaths,
					       const denpex_options *opts,
					       char **verdict_json, char **verdict_text,
					       char **comment_line, char **warnings)
#ifdef __cplusplus
	noexcept
#endif
	;

/* As denpex_diagnose_paths, and also the verdict as one self-contained HTML
 * page with the timeline picture (the console's page, static: no script), in
 * *report_html, for the admin report's report.html. */
DENPEX_API denpex_status denpex_diagnose_paths_report(const char *const *paths, size_t npaths,
						      const denpex_options *opts,
						      char **verdict_json, char **verdict_text,
						      char **comment_line, char **warnings,
						      char **report_html)
#ifdef __cplusplus
	noexcept
#endif
	;

/* Where a source came from, for the trust the diagnosis gives it. */
typedef enum {
	/* Collected by the caller itself from the kernel, the driver or Slurm
	 * (the epilog's /dev/kmsg share, accounting): evidence. */
	DENPEX_SOURCE_TRUSTED = 0,
	/* Written by the job (stdout, stderr, files in the job's spool): a
	 * hardware message in it (Xid, ECC, NVLink, GSP, fallen off the bus) is
	 * the job's claim, noted in the report but never the verdict. */
	DENPEX_SOURCE_JOB_OUTPUT = 1,
} denpex_provenance;

typedef struct denpex_source {
	const char *path;
	denpex_provenance provenance;
} denpex_source;

/* As denpex_diagnose_paths, with a provenance per path (file or directory:
 * everything under a directory shares it). denpex_diagnose_paths treats
 * every path as DENPEX_SOURCE_TRUSTED, as the CLI does. */
DENPEX_API denpex_status denpex_diagnose_sources(const denpex_source *sources, size_t nsources,
						 const denpex_options *opts,
						 char **verdict_json, char **verdict_text,
						 char **comment_line, char **warnings)
#ifdef __cplusplus
	noexcept
#endif
	;

/* As denpex_diagnose_sources, and also the report page, as
 * denpex_diagnose_paths_report gives it. */
DENPEX_API denpex_status denpex_diagnose_sources_report(const denpex_source *sources, size_t nsources,
							const denpex_options *opts, char **verdict_json,
							char **verdict_text, char **comment_line, char **warnings,
							char **report_html)
#ifdef __cplusplus
	noexcept
#endif
	;

/* Verdicts as Prometheus metrics (node_exporter textfile collector): under
 * an exclusive lock (waiting at most lock_timeout_s), adds the verdict (JSON
 * from denpex_diagnose_*; NULL: an epilog run without one) and one epilog
 * run of epilog_seconds (epilog_error non-zero: it failed) to the counters
 * kept in metrics_dir, and rewrites metrics_dir/denpex.prom atomically.
 * DENPEX_ERR_INPUT with denpex_last_error() when the directory or its files
 * cannot be used. */
DENPEX_API denpex_status denpex_metrics_record(const char *metrics_dir, const char *verdict_json,
					       double epilog_seconds, int epilog_error,
					       double lock_timeout_s)
#ifdef __cplusplus
	noexcept
#endif
	;

/* One key of a configuration file: a YAML mapping of keys to scalars or to
 * lists of scalars (denpex.yaml), read by libdiag's YAML loader, the one
 * that reads the signatures. */
typedef struct denpex_conf_entry {
	const char *key;
	const char *value;        /* the scalar ("" when empty or null); NULL for a list */
	const char *const *items; /* the list's scalars; NULL for a scalar */
	size_t nitems;
	int line; /* 1-based line of the key */
} denpex_conf_entry;

/* Parses len bytes of text (name: for messages) as such a mapping. On
 * DENPEX_OK *entries receives *nentries entries in file order, in one
 * malloc()ed block that the caller frees with denpex_free(). Otherwise
 * DENPEX_ERR_INPUT and, when error is not NULL, a malloc()ed
 * "name:line: reason" in *error (not YAML, not a mapping, a nested mapping). */
DENPEX_API denpex_status denpex_conf_parse(const char *text, size_t len, const char *name,
					   denpex_conf_entry **entries, size_t *nentries, char **error)
#ifdef __cplusplus
	noexcept
#endif
	;

DENPEX_API void denpex_free(void *p);

/* The reason for the last failure in this thread. */
DENPEX_API const char *denpex_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
