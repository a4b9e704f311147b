// Drives the epilog's metrics writer (denpex_metrics_record, the call
// denpex-epilog makes after each diagnosis) for tests/prometheus.sh:
//   metrics_writer DIR VERDICT.json|- SECONDS ERROR REPEAT
// "-" records an epilog run without a verdict. Exit 1 on any failure.
#include "denpex_diag.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: metrics_writer DIR VERDICT.json|- SECONDS ERROR REPEAT\n");
		return 2;
	}
	std::string verdict;
	if (std::string(argv[2]) != "-") {
		FILE *f = fopen(argv[2], "rb");
		if (!f) {
			perror(argv[2]);
			return 1;
		}
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			verdict.append(buf, n);
		fclose(f);
	}
	int repeat = atoi(argv[5]);
	for (int i = 0; i < repeat; i++)
		if (denpex_metrics_record(argv[1], verdict.empty() ? nullptr : verdict.c_str(), atof(argv[3]),
					  atoi(argv[4]), 30) != DENPEX_OK) {
			fprintf(stderr, "metrics_writer: %s\n", denpex_last_error());
			return 1;
		}
	return 0;
}
