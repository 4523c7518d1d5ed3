/* Times the first touch (memset) of a new 130 MiB anonymous mapping, five times, 2 s apart;
 * with any argument, after madvise(MADV_HUGEPAGE). gcc -O2 -o memtouch scripts/memtouch.c */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
int main(int argc, char **argv) {
    size_t n = 130u << 20;
    for (int i = 0; i < 5; i++) {
        char *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (argc > 1) madvise(p, n, MADV_HUGEPAGE);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        memset(p, 1, n);
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("%.0f ms\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
        munmap(p, n);
        struct timespec s = {2, 0};
        nanosleep(&s, 0);
    }
    return 0;
}
