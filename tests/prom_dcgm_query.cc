// Asks a Prometheus server for dcgm-exporter series the way denpex-epilog
// does (epilog/gpu_health_collect.cc) and prints the exposition it stores
// beside the node's evidence:  prom_dcgm_query URL HOST START END
#include "../epilog/gpu_health_collect.hh"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: prom_dcgm_query URL HOST START END\n");
		return 2;
	}
	std::string err;
	std::string text = denpex::epilog::prometheus_dcgm_series(argv[1], {argv[2]}, atol(argv[3]), atol(argv[4]), 5, err);
	fputs(text.c_str(), stdout);
	if (!err.empty()) {
		fprintf(stderr, "prom_dcgm_query: %s\n", err.c_str());
		return 1;
	}
	return 0;
}
