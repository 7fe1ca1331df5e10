// Planted: a raw string literal that a text scan takes for the start of a
// comment, so the #include below looks commented out; the compiler reads
// it as a directive and would open the file. The tokenizer reads the raw
// string as a string and refuses the include.
// expect-scan:
// expect-gpu: failed include_refused
// expect-cpu: failed include_refused
__device__ const char* note = R"x(" /* )x";
#include "/etc/passwd"
*/
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) { }
