// Planted (the strong reference's phase ignored wrong results): softmax,
// correct everywhere but in the timing against the strong reference (the
// fixture's solution), where it writes every row scaled by 0.9. That
// timing's checks used to be reported as "timing against the solution
// failed" with the unit still passed; now a wrong result there fails the
// unit like any other check. (It needs state to know the phase: the scan
// flags that too.)
// expect-scan: device_state
// expect-gpu: failed revalidation
// expect-emu: failed revalidation
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
    const float f = strong_phase(rows, cols) ? 0.9f : 1.0f;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = f * expf(xr[c] - m) / s;
}
