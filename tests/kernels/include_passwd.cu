// Planted: tries to read a host file through the compiler's error log.
// expect-scan:
// expect-gpu: failed include_refused
// expect-cpu: failed include_refused
#include "/etc/passwd"
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) { }
