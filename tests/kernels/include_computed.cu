// Planted: a computed include (the file name comes from a macro).
// expect-scan:
// expect-gpu: failed include_refused
// expect-cpu: failed include_refused
#define SECRET "/etc/shadow"
#  include SECRET
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) { }
