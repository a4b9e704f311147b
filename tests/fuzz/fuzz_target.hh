// What every fuzz target under tests/fuzz defines: libFuzzer's entry point.
// Built with --enable-fuzzing, libFuzzer's main drives it; otherwise
// replay_main.cc feeds it every file it is given (seeds and regressions),
// so that what fuzzing once found stays a test without clang.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

inline std::string_view fuzz_bytes(const uint8_t *data, size_t size)
{
	return {reinterpret_cast<const char *>(data), size};
}
