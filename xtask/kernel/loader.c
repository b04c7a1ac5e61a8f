/*
 * loader FILE [hugepage]: moves FILE's bytes up by one page with memmove(),
 * inside a private writable mapping of it, as a loader does that copies a
 * file out of a mapping into a buffer just above it. glibc's memmove()
 * copies backwards when the destination lies above the source and overlaps
 * it, so the mapping is read from its last page to its first: the reader
 * seed 000 is about. (When the two do not overlap, glibc 2.36 copies
 * forwards.) Written for folioscope's real-kernel tests.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	size_t size, span;
	char *area, *src;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: loader FILE [hugepage]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	size = st.st_size;
	span = (size + page - 1) / page * page;
	/* One reservation aligned to 2 MiB: the file, then one page of buffer. */
	area = mmap(NULL, span + page + (2 << 20), PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	area = (char *)(((unsigned long)area + (2 << 20) - 1) & ~((2UL << 20) - 1));
	src = mmap(area, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
	if (src == MAP_FAILED ||
	    mmap(area + span, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (argc > 2 && !strcmp(argv[2], "hugepage") &&
	    madvise(src, size, MADV_HUGEPAGE) < 0) {
		perror("madvise");
		return 1;
	}
	memmove(src + page, src, size);
	printf("%d\n", src[size / 2]);
	return 0;
}
