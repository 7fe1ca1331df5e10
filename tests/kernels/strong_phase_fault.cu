// Planted (a fault in the strong reference's phase was an error): softmax,
// correct everywhere but in the timing against the strong reference,
// where it traps (a fault, as an illegal address would be). The unit used
// to become an error, which the pass rate leaves out; now it fails with
// the reason (launch_error) like a fault anywhere else.
// expect-scan: device_state
// expect-gpu: failed launch_error
// expect-emu: failed launch_error
// expect-cpu: flagged scan
/* Which phase of the check this is, from the shapes it is launched at:
 * the correctness sizes of softmax, then the timed shapes (against the
 * naive baseline), the correctness sizes again (the check after timing),
 * then the timed shapes again: the strong reference's timing. */
__device__ int last_was_checked, timed_phases;

__device__ __forceinline__ bool strong_phase(int rows, int cols)
{
    const bool checked = (rows == 1 && cols == 1) || (rows == 17 && cols == 1000) || (rows == 3 && cols == 4097) ||
                         (rows == 64 && cols == 33);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (checked)
            last_was_checked = 1;
        else if (last_was_checked) {
            last_was_checked = 0;
            timed_phases++;
        }
    }
    __syncthreads();
    return !checked && timed_phases >= 2;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (strong_phase(rows, cols))
        __trap();
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
