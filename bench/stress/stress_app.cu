// SPDX-License-Identifier: MIT
//
// stress_app MODE: the short CUDA programs of bench/stress/stress.py, one
// per way a program can end (issue 16). Each prints what it prints through
// stdio (buffered when stdout is a pipe, so a crash at exit loses it), and
// ends with a fixed status, so a run under gpuhier can be compared byte for
// byte with a native run.
//
//   ret          one kernel, a line on stdout, return 42
//   exit         the same, exit(42)
//   thread_exit  the same, exit(42) called from a second thread
//   bg           main returns 42 while a second thread is still launching kernels;
//                an exit handler the program registered after CUDA initialized
//                (so it runs before the runtime's own teardown) stops and joins
//                the thread, which makes the ending deterministic natively
//   bg_race      the same without that handler: the runtime tears down while
//                the thread is inside it, and natively the program dies by
//                SIGSEGV in most runs (docs/stress.md), so it is no stress row
//   devreset     cudaDeviceReset() before return 42
//   nosync       one kernel launched, never synchronized, return 42
//   fork         fork() after CUDA init: the child prints and exits 7 without
//                touching CUDA, the parent waits and returns 42
//   exec         one kernel, then exec of this program with MODE ret
//   kernels N    N kernels of about 0.1 ms, synchronized one by one, then return 42
//   die SIG N    N kernels of about 0.1 ms, 150 ms of sleep, then the program
//                dies by SIG (abort, segv, bus, fpe, ill, term, int, hup):
//                a real fault for segv, fpe and ill, abort() for abort,
//                raise() for the others
//   own SIG N    like die, but the program installed its own handler for SIG
//                before CUDA initialized; the handler writes "own handler" to
//                stderr, restores the default and re-raises
#include "die.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

__global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
}

static int *buf;
static const int N = 1 << 16;

static int one_kernel(void)
{
    if (cudaMalloc(&buf, N * sizeof(int)) != cudaSuccess)
        return -1;
    cudaMemset(buf, 0, N * sizeof(int));
    add_one<<<N / 256, 256>>>(buf, N);
    int h = 0;
    cudaMemcpy(&h, buf + 7, sizeof(h), cudaMemcpyDeviceToHost);
    return h;
}

static void *exit_thread(void *arg)
{
    (void)arg;
    exit(42);
}

static volatile int stop_bg;
static pthread_t bg;

static void *bg_thread(void *arg)
{
    (void)arg;
    for (long i = 0; !stop_bg; i++) {
        add_one<<<N / 256, 256>>>(buf, N);
        if (i % 16 == 0)
            cudaStreamSynchronize(0); // errors ignored: the runtime may be unloading
    }
    return NULL;
}

static void stop_bg_thread(void)
{
    stop_bg = 1;
    pthread_join(bg, NULL);
}

static void kernels(long n)
{
    // 0.1 ms each at the H200's 1.98 GHz (0.6 ms at its 345 MHz idle clock)
    for (long i = 0; i < n; i++) {
        spin<<<1, 32>>>(200000);
        cudaDeviceSynchronize();
    }
}

static void own_handler(int sig)
{
    static const char msg[] = "own handler\n";
    ssize_t w = write(2, msg, sizeof(msg) - 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ret";
    if (!strcmp(mode, "die") || !strcmp(mode, "own")) {
        int sig = argc > 2 ? die_signum(argv[2]) : 0;
        long n = argc > 3 ? atol(argv[3]) : 1000;
        if (!sig)
            return 2;
        if (!strcmp(mode, "own"))
            signal(sig, own_handler);
        printf("before %ld kernels\n", n); // buffered: lost natively too
        kernels(n);
        struct timespec ts = {0, 150000000L};
        nanosleep(&ts, NULL);
        die_by(sig);
        return 3;
    }
    if (!strcmp(mode, "kernels")) {
        long n = argc > 2 ? atol(argv[2]) : 1000;
        kernels(n);
        printf("%ld kernels\n", n);
        return 42;
    }
    int h = one_kernel();
    if (!strcmp(mode, "nosync")) {
        add_one<<<N / 256, 256>>>(buf, N);
        printf("launched\n");
        return 42;
    }
    printf("result %d\n", h);
    if (!strcmp(mode, "ret"))
        return 42;
    if (!strcmp(mode, "exit"))
        exit(42);
    if (!strcmp(mode, "thread_exit")) {
        pthread_t t;
        pthread_create(&t, NULL, exit_thread, NULL);
        pthread_join(t, NULL);
        return 3;
    }
    if (!strcmp(mode, "bg") || !strcmp(mode, "bg_race")) {
        if (!strcmp(mode, "bg"))
            atexit(stop_bg_thread);
        pthread_create(&bg, NULL, bg_thread, NULL);
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
        return 42; // the thread is still launching
    }
    if (!strcmp(mode, "devreset")) {
        cudaDeviceReset();
        return 42;
    }
    if (!strcmp(mode, "fork")) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            printf("child\n");
            exit(7);
        }
        int st = 0;
        waitpid(p, &st, 0);
        printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
        return 42;
    }
    if (!strcmp(mode, "exec")) {
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "ret", (char *)NULL);
        return 3;
    }
    return 2;
}
