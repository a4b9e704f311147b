// Ray 2.x session logs (session_*/logs/: worker-<worker>-<job>-<pid>.out|err,
// python-core-worker-<worker>_<pid>.log, raylet.out, gcs_server.out,
// dashboard*.log, job-driver-*.log) and the driver's console, whose lines
// carry Ray's "(Actor pid=N, ip=IP)" prefix. The lines themselves are read
// as job logs against conf/signatures/ray.yaml; this file adds what Ray
// spreads over file names and neighbouring lines: which worker process a
// file or a re-raised traceback belongs to, and which attempts of one actor,
// task or trial failed.
#pragma once

#include "model/evidence.hh"

#include <string>

namespace diag {

// The pid and job id a Ray log's file name gives (worker-*-<job>-<pid>.out,
// python-core-worker-*_<pid>.log). False when the name is not one of them.
bool ray_file_hint(const std::string &path, int &pid, std::string &job);

// What a directory walk leaves alone: a session's other folders than logs/
// (runtime_resources/ holds whole Python environments, sockets/ sockets) and
// Tune's error.pkl (a pickled exception; error.txt says it in text).
bool ray_walk_skips(const std::string &path);

// Before identities are resolved: a worker file's lines take its pid; a
// re-raised traceback (RayTaskError ..., ray::f() (pid=N, ip=IP)) and an
// actor-death report (actor_id:, pid:, ip: fields) lend their worker to the
// lines they wrap; a pid seen on one host only gives that host to its lines.
void unwrap_ray(evidence &ev);

// After the diagnosis: the Ray job, the actor of the first failure, how
// many times it was tried and whether the later attempts failed alike.
void settle_ray(evidence &ev, long first_event, failure_class first_class);

} // namespace diag
