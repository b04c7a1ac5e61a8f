/*
 * The reproducer Qiliang Yuan posted with "[PATCH v2 0/3] mm/filemap: read
 * ahead for mmap readers that move backwards" (seed 000 of this project),
 * as posted: it reads one byte of each page of FILE, last page first,
 * under MADV_HUGEPAGE (or MADV_SEQUENTIAL with "seq"). folioscope's
 * real-kernel tests record it as a program nobody here wrote.
 */
/* revwalk FILE [seq]: read each page of FILE, last page first */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
long ps = sysconf(_SC_PAGESIZE);
int fd = open(argv[1], O_RDONLY);
struct rusage ru;
struct stat st;
size_t i;
char *p;
fstat(fd, &st);
posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
madvise(p, st.st_size, argc > 2 && !strcmp(argv[2], "seq") ?
MADV_SEQUENTIAL : MADV_HUGEPAGE);
for (i = st.st_size / ps; i > 0; i--)
(void)*(volatile char *)(p + (i - 1) * ps);
getrusage(RUSAGE_SELF, &ru);
printf("major faults: %ld\n", ru.ru_majflt);
return 0;
}
