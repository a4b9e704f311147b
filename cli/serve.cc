// denpex serve: GET / is the console page, POST /api/diagnose takes raw
// text or multipart files and answers the verdict JSON, POST /diagnose is
// the page's form (the same diagnosis, answered as the page), GET /healthz.
//
// Safe by default: loopback only unless asked; a body limit; a bounded
// number of diagnoses at once (503 beyond, decided before any body is
// read, so memory stays within slots x body limit); an idle timeout and a
// deadline per upload; bodies held in memory only and never logged.
#include "config.h"
#include "serve.hh"

#include "pipeline.hh"
#include "rendering/report_html.hh"
#include "rendering/timeline_svg.hh"

// Generated from cli/console.js (cli/local.mk).
#include "cli/console_js.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace cli {

const char *const serve_usage =
	"Usage: denpex serve [OPTIONS]\n"
	"\n"
	"The diagnosis console: a web page to paste a failed run's log into (or drop\n"
	"its files on) and see the verdict and the timeline. Logs are diagnosed in\n"
	"memory and never stored or logged. GET / (the page), POST /api/diagnose (raw\n"
	"text or multipart/form-data files; answers the verdict JSON), GET /healthz.\n"
	"\n"
	"Options:\n"
	"  --listen ADDR:PORT  where to listen; default 127.0.0.1:8470 (PORT 0: any\n"
	"                      free port). Another address than loopback lets anyone\n"
	"                      who reaches it submit logs: there is no authentication\n"
	"  --max-body N        largest request body; suffixes K, M, G; default 256M\n"
	"  --jobs N            diagnoses at once (more: 503); default 4\n"
	"  --timeout SECONDS   deadline to receive one request; default 60\n"
	"  --conf DIR          configuration directory, as for diagnose\n"
	"  -h, --help          show this help\n";

namespace {

using steady = std::chrono::steady_clock;

struct server_config {
	std::string conf_dir;
	uint64_t max_body = 256ull << 20;
	unsigned jobs = 4;
	unsigned timeout_s = 60;
	bool loopback = true;
};

struct server {
	server_config cfg;
	std::atomic<unsigned> busy{0};
};

// One uploaded part: a file, or the pasted text.
struct part {
	std::string name;
	std::vector<char> bytes;
};

enum class route { page, css, js, healthz, api, form, not_found, bad_method };

struct request {
	route r = route::not_found;
	steady::time_point start = steady::now();
	bool slot = false;            // holds one of the diagnosis slots
	bool multipart = false;
	MHD_PostProcessor *pp = nullptr;
	std::vector<part> parts;
	uint64_t received = 0;
	unsigned status = 0;          // set: refuse with this status
	std::string error;
	bool parse_failed = false;
	server *srv = nullptr;
	~request()
	{
		if (pp)
			MHD_destroy_post_processor(pp);
		if (slot)
			srv->busy--;
	}
};

volatile sig_atomic_t stop_requested = 0;
void on_signal(int) { stop_requested = 1; }

const char *csp_console =
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

MHD_Result send(MHD_Connection *c, unsigned status, const std::string &body, const char *type)
{
	MHD_Response *resp = MHD_create_response_from_buffer(body.size(), const_cast<char *>(body.data()), MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", type);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Content-Security-Policy", csp_console);
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(resp, "Retry-After", "5");
	MHD_Result r = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return r;
}

std::string json_error(unsigned status, const std::string &msg)
{
	std::string s = "{\"status\": " + std::to_string(status) + ", \"error\": \"";
	for (char ch : msg) {
		unsigned char u = static_cast<unsigned char>(ch);
		if (ch == '"' || ch == '\\')
			s += std::string("\\") + ch;
		else if (u < 0x20 || u >= 0x7f)
			s += ' '; // messages are ours, ASCII; anything else is not worth escaping
		else
			s += ch;
	}
	return s + "\"}\n";
}

MHD_Result refuse(MHD_Connection *c, const request &rq, unsigned status, const std::string &msg)
{
	if (rq.r == route::form) {
		diag::page_parts p;
		p.console = true;
		p.error = msg;
		return send(c, status, diag::page_html(p), "text/html; charset=utf-8");
	}
	return send(c, status, json_error(status, msg), "application/json");
}

bool host_is_loopback_name(const char *host)
{
	if (!host)
		return true; // HTTP/1.0 without Host
	std::string h = host;
	if (!h.empty() && h[0] == '[') {
		size_t e = h.find(']');
		h = e == std::string::npos ? h : h.substr(1, e - 1);
	} else if (size_t colon = h.rfind(':'); colon != std::string::npos && h.find(':') == colon) {
		h = h.substr(0, colon);
	}
	return h == "localhost" || h == "::1" || h.rfind("127.", 0) == 0;
}

bool add_bytes(request &rq, part &p, const char *data, size_t size)
{
	rq.received += size;
	if (rq.received > rq.srv->cfg.max_body) {
		rq.status = 413;
		rq.error = "request body larger than " + std::to_string(rq.srv->cfg.max_body) + " bytes";
		return false;
	}
	p.bytes.insert(p.bytes.end(), data, data + size);
	return true;
}

MHD_Result on_part(void *cls, MHD_ValueKind, const char *key, const char *filename, const char *, const char *,
		   const char *data, uint64_t off, size_t size)
{
	request &rq = *static_cast<request *>(cls);
	if (rq.status)
		return MHD_YES;
	bool is_file = filename != nullptr;
	bool is_text = !is_file && key && !strcmp(key, "text");
	if (!is_file && !is_text)
		return MHD_YES; // other fields carry nothing to diagnose
	std::string name = is_file ? filename : "pasted";
	// A new part starts at offset 0.
	if (off == 0 || rq.parts.empty() || rq.parts.back().name != name)
		rq.parts.push_back({name, {}});
	add_bytes(rq, rq.parts.back(), data, size); // over the limit: refused once MHD returns
	return MHD_YES;
}

bool content_type_ok(const std::string &ct, bool &multipart)
{
	std::string base = ct.substr(0, ct.find(';'));
	while (!base.empty() && base.back() == ' ')
		base.pop_back();
	for (auto &ch : base)
		ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
	multipart = base == "multipart/form-data";
	// curl --data-binary sends x-www-form-urlencoded: the bytes are the log.
	return multipart || base.empty() || base.rfind("text/", 0) == 0 || base == "application/octet-stream" ||
	       base == "application/json" || base == "application/x-www-form-urlencoded";
}

MHD_Result diagnose_and_answer(MHD_Connection *c, request &rq)
{
	// Empty parts (the form's empty text box) are no input.
	std::vector<part> parts;
	for (auto &p : rq.parts)
		if (!p.bytes.empty())
			parts.push_back(std::move(p));
	rq.parts.clear();
	if (parts.empty())
		return refuse(c, rq, MHD_HTTP_BAD_REQUEST, "nothing to diagnose: paste a log or add files");
	diag::pipeline_options po;
	po.conf_dir = rq.srv->cfg.conf_dir;
	std::vector<std::string> warnings;
	po.warn = [&](const std::string &w) { warnings.push_back(w); };
	diag::analysis an;
	std::string err;
	if (!an.init(po, err))
		return refuse(c, rq, MHD_HTTP_INTERNAL_SERVER_ERROR, "configuration error: " + err);
	// Names as the browser gave them, made unique: they are the file in file:line.
	std::vector<std::string> seen;
	for (auto &p : parts) {
		std::string n = p.name.empty() ? "upload" : p.name;
		size_t slash = n.find_last_of("/\\");
		if (slash != std::string::npos)
			n = n.substr(slash + 1);
		std::string u = n;
		for (int k = 2; std::find(seen.begin(), seen.end(), u) != seen.end(); k++)
			u = n + "#" + std::to_string(k);
		seen.push_back(u);
		// Reading is linear in the bytes, which the body limit bounds; the
		// deadline is checked between sources all the same.
		if (steady::now() - rq.start > std::chrono::seconds(2 * rq.srv->cfg.timeout_s))
			return refuse(c, rq, MHD_HTTP_SERVICE_UNAVAILABLE, "diagnosis took longer than the deadline; try fewer or smaller files");
		an.add_buffer(std::move(p.bytes), u);
	}
	if (an.usable_sources() == 0)
		return refuse(c, rq, MHD_HTTP_BAD_REQUEST,
			      "nothing usable to diagnose: " + (warnings.empty() ? std::string("no input") : warnings.front()));
	diag::verdict v = an.run();
	std::string json = diag::verdict_to_json(v, true);
	if (rq.r == route::api)
		return send(c, MHD_HTTP_OK, json + "\n", "application/json");
	diag::page_parts p;
	p.console = true;
	p.v = &v;
	p.svg = diag::timeline_svg(an.ev(), v);
	p.json = json;
	p.warnings = warnings;
	return send(c, MHD_HTTP_OK, diag::page_html(p), "text/html; charset=utf-8");
}

MHD_Result handle(void *cls, MHD_Connection *c, const char *url, const char *method, const char *, const char *upload_data,
		  size_t *upload_data_size, void **con_cls)
{
	server &srv = *static_cast<server *>(cls);
	if (!*con_cls) {
		auto *rq = new request;
		rq->srv = &srv;
		*con_cls = rq;
		std::string u = url, m = method;
		bool get = m == "GET" || m == "HEAD", post = m == "POST";
		if (u == "/")
			rq->r = get ? route::page : route::bad_method;
		else if (u == "/page.css")
			rq->r = get ? route::css : route::bad_method;
		else if (u == "/console.js")
			rq->r = get ? route::js : route::bad_method;
		else if (u == "/healthz")
			rq->r = get ? route::healthz : route::bad_method;
		else if (u == "/api/diagnose")
			rq->r = post ? route::api : route::bad_method;
		else if (u == "/diagnose")
			rq->r = post ? route::form : route::bad_method;
		// Loopback only answers loopback names: a page elsewhere cannot
		// rebind its name to 127.0.0.1 and read the console.
		if (srv.cfg.loopback && !host_is_loopback_name(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host")))
			return refuse(c, *rq, MHD_HTTP_BAD_REQUEST, "unexpected Host header for a loopback server");
		switch (rq->r) {
		case route::not_found:
			return refuse(c, *rq, MHD_HTTP_NOT_FOUND, "no such page");
		case route::bad_method:
			return refuse(c, *rq, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed here");
		case route::page: {
			diag::page_parts p;
			p.console = true;
			return send(c, MHD_HTTP_OK, diag::page_html(p), "text/html; charset=utf-8");
		}
		case route::css:
			return send(c, MHD_HTTP_OK, diag::page_css(), "text/css; charset=utf-8");
		case route::js:
			return send(c, MHD_HTTP_OK, std::string(reinterpret_cast<const char *>(console_js_bytes), sizeof(console_js_bytes) - 1),
				    "text/javascript; charset=utf-8");
		case route::healthz:
			return send(c, MHD_HTTP_OK, "{\"status\": \"ok\", \"busy\": " + std::to_string(srv.busy.load()) + ", \"jobs\": " +
							    std::to_string(srv.cfg.jobs) + "}\n",
				    "application/json");
		default:
			break;
		}
		// A diagnosis: refuse what cannot be taken before reading a byte of it.
		const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		if (len && strtoull(len, nullptr, 10) > srv.cfg.max_body)
			return refuse(c, *rq, 413,
				      "request body larger than " + std::to_string(srv.cfg.max_body) + " bytes");
		const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
		if (!content_type_ok(ct ? ct : "", rq->multipart))
			return refuse(c, *rq, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
				      "send the log as text/plain or application/octet-stream, or files as multipart/form-data");
		unsigned b = srv.busy.load();
		while (b < srv.cfg.jobs && !srv.busy.compare_exchange_weak(b, b + 1)) {
		}
		if (b >= srv.cfg.jobs)
			return refuse(c, *rq, MHD_HTTP_SERVICE_UNAVAILABLE, "busy: " + std::to_string(srv.cfg.jobs) + " diagnoses running; try again");
		rq->slot = true;
		if (rq->multipart) {
			rq->pp = MHD_create_post_processor(c, 64 * 1024, on_part, rq);
			if (!rq->pp)
				return refuse(c, *rq, MHD_HTTP_BAD_REQUEST, "malformed multipart/form-data (no boundary)");
		} else {
			rq->parts.push_back({"pasted", {}});
			if (len)
				rq->parts.back().bytes.reserve(static_cast<size_t>(strtoull(len, nullptr, 10)) + 64 * 1024 + 1);
		}
		return MHD_YES;
	}
	request &rq = *static_cast<request *>(*con_cls);
	if (*upload_data_size) {
		size_t n = *upload_data_size;
		*upload_data_size = 0;
		// Past the deadline (a client that trickles its body): the
		// connection is closed, what came is dropped.
		if (steady::now() - rq.start > std::chrono::seconds(srv.cfg.timeout_s))
			return MHD_NO;
		if (rq.status)
			return MHD_YES; // refused: the rest is drained, not kept
		if (rq.pp) {
			if (MHD_post_process(rq.pp, upload_data, n) != MHD_YES && !rq.status) {
				rq.status = MHD_HTTP_BAD_REQUEST;
				rq.error = "malformed multipart/form-data";
			}
		} else {
			add_bytes(rq, rq.parts.back(), upload_data, n);
		}
		if (rq.status) {
			// MHD answers only once the body is in: free what was kept.
			std::vector<part>().swap(rq.parts);
		}
		return MHD_YES;
	}
	if (rq.status)
		return refuse(c, rq, rq.status, rq.error);
	if (rq.pp) {
		MHD_Result done = MHD_destroy_post_processor(rq.pp);
		rq.pp = nullptr;
		if (done != MHD_YES)
			return refuse(c, rq, MHD_HTTP_BAD_REQUEST, "malformed multipart/form-data (incomplete)");
	}
	return diagnose_and_answer(c, rq);
}

void on_completed(void *cls, MHD_Connection *c, void **con_cls, MHD_RequestTerminationCode)
{
	(void)cls;
	auto *rq = static_cast<request *>(*con_cls);
	if (!rq)
		return;
	// One line a request, without a byte of what was sent.
	const MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
	unsigned status = ci ? ci->http_status : 0;
	double s = std::chrono::duration<double>(steady::now() - rq->start).count();
	static const char *names[] = {"/", "/page.css", "/console.js", "/healthz", "/api/diagnose", "/diagnose", "(other)", "(method)"};
	fprintf(stderr, "denpex serve: %s %u, %llu bytes received, %.3f s\n", names[static_cast<int>(rq->r)], status,
		static_cast<unsigned long long>(rq->received), s);
	delete rq;
	*con_cls = nullptr;
}

bool parse_listen(const std::string &spec, sockaddr_storage &ss, socklen_t &len, std::string &err)
{
	std::string host, port;
	if (!spec.empty() && spec[0] == '[') {
		size_t e = spec.find("]:");
		if (e == std::string::npos) {
			err = "--listen needs ADDR:PORT, e.g. 127.0.0.1:8470 or [::1]:8470";
			return false;
		}
		host = spec.substr(1, e - 1);
		port = spec.substr(e + 2);
	} else {
		size_t colon = spec.rfind(':');
		if (colon == std::string::npos || spec.find(':') != colon) {
			err = "--listen needs ADDR:PORT, e.g. 127.0.0.1:8470 or [::1]:8470";
			return false;
		}
		host = spec.substr(0, colon);
		port = spec.substr(colon + 1);
	}
	addrinfo hints{}, *res = nullptr;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res);
	if (rc != 0 || !res) {
		err = "--listen " + spec + ": " + gai_strerror(rc);
		return false;
	}
	memcpy(&ss, res->ai_addr, res->ai_addrlen);
	len = res->ai_addrlen;
	freeaddrinfo(res);
	return true;
}

bool is_loopback(const sockaddr_storage &ss)
{
	if (ss.ss_family == AF_INET)
		return (ntohl(reinterpret_cast<const sockaddr_in &>(ss).sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6 &>(ss).sin6_addr);
	return false;
}

} // namespace

int cmd_serve(int argc, char **argv)
{
	server srv;
	std::string listen = "127.0.0.1:8470";
	for (int i = 0; i < argc; i++) {
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
		auto bad = [&](const char *what) {
			fprintf(stderr, "denpex: %s (try 'denpex serve --help')\n", what);
			return 2;
		};
		if (a == "-h" || a == "--help") {
			fputs(serve_usage, stdout);
			return 0;
		} else if (a == "--listen") {
			if (!v)
				return bad("--listen needs ADDR:PORT");
			listen = v;
			i++;
		} else if (a == "--max-body") {
			if (!v || !parse_size(v, srv.cfg.max_body) || srv.cfg.max_body == 0)
				return bad("--max-body needs a size such as 256M");
			i++;
		} else if (a == "--jobs") {
			char *end = nullptr;
			long n = v ? strtol(v, &end, 10) : 0;
			if (!v || *end || n < 1 || n > 1024)
				return bad("--jobs needs a number from 1 to 1024");
			srv.cfg.jobs = static_cast<unsigned>(n);
			i++;
		} else if (a == "--timeout") {
			char *end = nullptr;
			long n = v ? strtol(v, &end, 10) : 0;
			if (!v || *end || n < 1 || n > 86400)
				return bad("--timeout needs a number of seconds");
			srv.cfg.timeout_s = static_cast<unsigned>(n);
			i++;
		} else if (a == "--conf") {
			if (!v)
				return bad("--conf needs a directory");
			srv.cfg.conf_dir = v;
			i++;
		} else {
			fprintf(stderr, "denpex: unknown argument '%s' for serve (try 'denpex serve --help')\n", a.c_str());
			return 2;
		}
	}
	sockaddr_storage ss{};
	socklen_t sl = 0;
	std::string err;
	if (!parse_listen(listen, ss, sl, err)) {
		fprintf(stderr, "denpex: %s\n", err.c_str());
		return 2;
	}
	{
		// The configuration is checked once at the start: a bad one is
		// an error now, not a 500 on every request.
		diag::pipeline_options po;
		po.conf_dir = srv.cfg.conf_dir;
		diag::analysis an;
		if (!an.init(po, err)) {
			fprintf(stderr, "denpex: configuration error: %s\n", err.c_str());
			return 2;
		}
	}
	srv.cfg.loopback = is_loopback(ss);
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa {};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	// Connections beyond the limit wait in the kernel's backlog; an idle
	// one (a slow client) is closed after the idle timeout.
	MHD_Daemon *d = MHD_start_daemon(flags, 0, nullptr, nullptr, handle, &srv, MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr *>(&ss),
					 MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(std::min(srv.cfg.timeout_s, 15u)),
					 MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(std::max(64u, 8 * srv.cfg.jobs)),
					 MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<size_t>(128 * 1024),
					 MHD_OPTION_NOTIFY_COMPLETED, on_completed, nullptr, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "denpex: cannot listen on %s: %s\n", listen.c_str(), strerror(errno));
		return 1;
	}
	const MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char host[INET6_ADDRSTRLEN] = "?";
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in &>(ss).sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 &>(ss).sin6_addr, host, sizeof(host));
	unsigned port = di ? di->port : 0;
	bool v6 = ss.ss_family == AF_INET6;
	if (!srv.cfg.loopback)
		fprintf(stderr, "denpex serve: WARNING: listening on %s, not loopback: anyone who can reach it can submit logs "
				"and read verdicts; there is no authentication or TLS\n",
			host);
	fprintf(stderr, "denpex serve: listening on http://%s%s%s:%u/ (body limit %llu bytes, %u diagnoses at once)\n", v6 ? "[" : "", host,
		v6 ? "]" : "", port, static_cast<unsigned long long>(srv.cfg.max_body), srv.cfg.jobs);
	fflush(stderr);
	while (!stop_requested)
		pause();
	fprintf(stderr, "denpex serve: stopping\n");
	MHD_stop_daemon(d);
	return 0;
}

} // namespace cli
