/*
 * The runtime of the CUDA emulation (cuda_emu.h): runs one block of an
 * emulated kernel with a coroutine per CUDA thread (ucontext), and provides
 * the barriers, the warp exchange behind shuffles and votes, and the
 * sharing of WMMA results between the lanes of a warp.
 *
 * Scheduling: threads run in order, each until it blocks at a barrier
 * (__syncthreads, or a warp barrier: __syncwarp, a shuffle) or finishes. A
 * block barrier opens when every thread that has not finished waits at it,
 * a warp barrier when every unfinished lane of the warp does. When nothing
 * can run and nothing can open (lanes of one warp waiting at different
 * barriers, a __syncthreads only some threads reach) the launch fails, as
 * it would hang or misbehave on a GPU.
 */
#include <ucontext.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "cuda_emu.h"

extern "C" {
#include "device.h"
/* The kernel, called with the launch's parameter array (emu_check's trampoline). */
void emu_entry(void **params);
void emu_cpu_kernel(const struct sc_cpu_thread *t, void **params);
}

uint3 emu_threadIdx, emu_blockIdx;
dim3 emu_blockDim, emu_gridDim;

/*
 * Switching coroutines: on x86-64 a few instructions that save the
 * callee-saved registers and swap stacks (swapcontext would also save and
 * restore the signal mask, a system call per switch: a shuffle-heavy
 * kernel switches millions of times); elsewhere ucontext.
 */
#if defined(__x86_64__)
extern "C" void emu_switch(void **save_sp, void *load_sp);
asm(".text\n"
    ".globl emu_switch\n"
    ".type emu_switch,@function\n"
    "emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size emu_switch, .-emu_switch\n");
#define EMU_FAST_SWITCH 1
#endif

namespace {

enum state { RUN, AT_BLOCK, AT_WARP, DONE };

const size_t STACK_BYTES = 512 * 1024;

struct thread {
	ucontext_t ctx;
	void *sp = nullptr;      /* saved stack pointer (fast switch) */
	char *stack = nullptr;
	state st = RUN;
	uint3 tid;
	unsigned linear = 0;
	unsigned mma_calls = 0;
};

struct mma_entry {
	std::vector<unsigned char> key, result;
	unsigned uses = 0;
};

struct warp {
	unsigned live = 0, waiting = 0;
	unsigned char slot[2][32][16];  /* double-buffered by each lane's shuffle parity */
	unsigned char parity[32] = {};
	std::map<unsigned, mma_entry> mma;
};

std::vector<thread> threads;
/* frees the coroutine stacks at exit (destroyed before threads) */
struct stacks_owner {
	~stacks_owner()
	{
		for (auto &t : threads)
			free(t.stack);
	}
} stacks_owner_;
std::vector<warp> warps;
#ifndef EMU_FAST_SWITCH
ucontext_t sched;
#endif
void *sched_sp;
unsigned cur, live, block_waiting;
void **launch_params;

thread &me() { return threads[cur]; }
warp &my_warp() { return warps[me().linear / 32]; }

void to_scheduler()
{
#ifdef EMU_FAST_SWITCH
	emu_switch(&me().sp, sched_sp);
#else
	swapcontext(&me().ctx, &sched);
#endif
}

void thread_main()
{
	emu_entry(launch_params);
	me().st = DONE;
#ifdef EMU_FAST_SWITCH
	to_scheduler();  /* never resumed */
	abort();
#endif
	/* returning resumes sched (uc_link) */
}

void release_block()
{
	for (auto &t : threads)
		if (t.st == AT_BLOCK)
			t.st = RUN;
	block_waiting = 0;
}

void release_warp(unsigned w)
{
	for (unsigned l = 0; l < 32 && w * 32 + l < threads.size(); l++)
		if (threads[w * 32 + l].st == AT_WARP)
			threads[w * 32 + l].st = RUN;
	warps[w].waiting = 0;
}

/* Opens every barrier that can open; returns whether one did. */
bool open_barriers()
{
	bool any = false;
	for (unsigned w = 0; w < warps.size(); w++)
		if (warps[w].waiting && warps[w].waiting == warps[w].live) {
			release_warp(w);
			any = true;
		}
	if (block_waiting && block_waiting == live) {
		release_block();
		any = true;
	}
	return any;
}

void block_yield(state st)
{
	me().st = st;
	to_scheduler();
}

/* Sets up thread t to start in thread_main at its first switch. */
void start(thread &t)
{
#ifdef EMU_FAST_SWITCH
	/* the stack emu_switch pops: six registers, then the return address;
	 * after the ret, rsp % 16 == 8, as at the entry of a called function */
	uintptr_t top = ((uintptr_t)t.stack + STACK_BYTES) & ~(uintptr_t)15;
	void **sp = (void **)(top - 8 - 8);
	*sp = (void *)thread_main;
	for (int i = 0; i < 6; i++)
		*--sp = nullptr;
	t.sp = sp;
#else
	getcontext(&t.ctx);
	t.ctx.uc_stack.ss_sp = t.stack;
	t.ctx.uc_stack.ss_size = STACK_BYTES;
	t.ctx.uc_link = &sched;
	makecontext(&t.ctx, thread_main, 0);
#endif
}

void resume(thread &t)
{
#ifdef EMU_FAST_SWITCH
	emu_switch(&sched_sp, t.sp);
#else
	swapcontext(&sched, &t.ctx);
#endif
}

} // namespace

extern "C" void emu_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "emu: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (block %u,%u,%u thread %u,%u,%u)\n", emu_blockIdx.x, emu_blockIdx.y, emu_blockIdx.z,
		emu_threadIdx.x, emu_threadIdx.y, emu_threadIdx.z);
	abort();
}

extern "C" void emu_trap(void)
{
	sc_device_cpu_fault("an illegal instruction was encountered (trap)");
	me().st = DONE;
	to_scheduler();  /* never resumed */
	abort();
}

/* The __shared__ variables (cuda_emu.h puts them in the section
 * emu_shared); weak, for a kernel without any. */
extern "C" {
extern unsigned char __start_emu_shared[] __attribute__((weak));
extern unsigned char __stop_emu_shared[] __attribute__((weak));
}

/* Fills the block's shared memory with a pattern of its own before it
 * runs: on a GPU, shared memory holds whatever an earlier block left. */
static void scrub_shared(void)
{
	static uint64_t blocks;
	uint64_t x = ++blocks * 0x9e3779b97f4a7c15ULL;
	unsigned char *start = __start_emu_shared, *stop = __stop_emu_shared;
	if (!start || stop <= start)
		return;
	for (unsigned char *p = start; p < stop; p += 8) {
		uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		memcpy(p, &z, (size_t)(stop - p) < 8 ? (size_t)(stop - p) : 8);
	}
}

extern "C" void emu_syncthreads(void)
{
	block_waiting++;
	block_yield(AT_BLOCK);
}

extern "C" void emu_syncwarp(void)
{
	my_warp().waiting++;
	block_yield(AT_WARP);
}

extern "C" unsigned emu_lane(void)
{
	return me().linear % 32;
}

extern "C" void emu_exchange(const void *mine, void *out, size_t n, int src)
{
	warp &w = my_warp();
	unsigned lane = emu_lane(), p = w.parity[lane];
	if (n > sizeof(w.slot[0][0]))
		emu_fail("a shuffle of %zu bytes", n);
	if (src < 0 || src > 31)
		emu_fail("a shuffle from lane %d", src);
	/* One barrier: a lane reuses this parity's slot only after the next
	 * exchange's barrier, which every lane passes after reading this one. */
	memcpy(w.slot[p][lane], mine, n);
	w.parity[lane] = (unsigned char)(p ^ 1);
	emu_syncwarp();
	memcpy(out, w.slot[p][src], n);
}

extern "C" int emu_mma_lookup(const void *key, size_t keylen, void *result, size_t reslen)
{
	warp &w = my_warp();
	unsigned idx = me().mma_calls++;
	auto it = w.mma.find(idx);

	if (it == w.mma.end())
		return 0;
	if (it->second.key.size() != keylen || memcmp(it->second.key.data(), key, keylen))
		emu_fail("the lanes of a warp passed different fragments to wmma::mma_sync (call %u)", idx);
	memcpy(result, it->second.result.data(), reslen);
	if (++it->second.uses >= w.live)
		w.mma.erase(it);
	return 1;
}

extern "C" void emu_mma_publish(const void *key, size_t keylen, const void *result, size_t reslen)
{
	warp &w = my_warp();
	mma_entry &e = w.mma[me().mma_calls - 1];

	e.key.assign((const unsigned char *)key, (const unsigned char *)key + keylen);
	e.result.assign((const unsigned char *)result, (const unsigned char *)result + reslen);
	e.uses = 1;
	if (e.uses >= w.live)
		w.mma.erase(me().mma_calls - 1);
}

/* The CPU double calls this once per thread; the block runs on the first. */
extern "C" void emu_cpu_kernel(const struct sc_cpu_thread *t, void **params)
{
	unsigned n = t->block[0] * t->block[1] * t->block[2];

	if (t->tid[0] || t->tid[1] || t->tid[2])
		return;
	emu_blockIdx = uint3{ t->bid[0], t->bid[1], t->bid[2] };
	emu_blockDim = dim3{ t->block[0], t->block[1], t->block[2] };
	emu_gridDim = dim3{ t->grid[0], t->grid[1], t->grid[2] };
	launch_params = params;
	if (threads.size() < n) {
		size_t old = threads.size();
		threads.resize(n);
		for (size_t i = old; i < n; i++)
			threads[i].stack = (char *)malloc(STACK_BYTES);
	}
	warps.assign((n + 31) / 32, warp());
	for (unsigned i = 0; i < n; i++) {
		thread &th = threads[i];
		th.tid = uint3{ i % t->block[0], i / t->block[0] % t->block[1], i / (t->block[0] * t->block[1]) };
		th.linear = i;
		th.st = RUN;
		th.mma_calls = 0;
		start(th);
		warps[i / 32].live++;
	}
	live = n;
	block_waiting = 0;
	scrub_shared();
	while (live) {
		bool ran = false;
		for (unsigned i = 0; i < n; i++) {
			if (threads[i].st != RUN)
				continue;
			cur = i;
			emu_threadIdx = threads[i].tid;
			resume(threads[i]);
			ran = true;
			if (threads[i].st == DONE) {
				live--;
				warps[i / 32].live--;
			}
			open_barriers();
		}
		if (!ran && live && !open_barriers()) {
			unsigned at_block = 0, at_warp = 0;
			for (unsigned i = 0; i < n; i++) {
				at_block += threads[i].st == AT_BLOCK;
				at_warp += threads[i].st == AT_WARP;
			}
			emu_fail("deadlock: %u threads wait at __syncthreads, %u at a warp barrier, %u finished", at_block,
				 at_warp, n - live);
		}
	}
	/* the block is over: no unused WMMA results may remain */
	for (auto &w : warps)
		if (!w.mma.empty())
			emu_fail("lanes of a warp made different numbers of wmma::mma_sync calls");
}
