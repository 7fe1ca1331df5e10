// Planted: does nothing; the output keeps whatever was there before.
// expect-scan:
// expect-gpu: failed stale_output
// expect-emu: failed stale_output
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
}
