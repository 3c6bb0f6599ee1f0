/*-------------------------------------------------------------------------
 *
 * standalone.c
 *		palloc and friends for programs that link stdesign's pure layers
 *		without a backend (unit tests, fuzz targets).
 *
 * Every allocation is kept on a list so that st_standalone_reset() can free
 * them all, as a memory context reset would; a fuzz target resets after each
 * input so that LeakSanitizer sees no leak.
 *
 *-------------------------------------------------------------------------
 */
#include "../../src/common/st_common.h"

#include <stdio.h>

typedef struct Chunk
{
	struct Chunk *prev;
	struct Chunk *next;
	size_t		size;
	/* the user's bytes follow, max-aligned */
} Chunk;

#define CHUNK_HDR ((sizeof(Chunk) + 15) & ~(size_t) 15)

static Chunk *chunks = NULL;

static void *
chunk_alloc(size_t size, int zero)
{
	Chunk	   *c;

	if (size > (size_t) 1 << 31)
	{
		fprintf(stderr, "standalone palloc: invalid request size %zu\n", size);
		abort();
	}
	c = zero ? calloc(1, CHUNK_HDR + size) : malloc(CHUNK_HDR + size);
	if (c == NULL)
	{
		fprintf(stderr, "standalone palloc: out of memory\n");
		abort();
	}
	c->size = size;
	c->prev = NULL;
	c->next = chunks;
	if (chunks)
		chunks->prev = c;
	chunks = c;
	return (char *) c + CHUNK_HDR;
}

static Chunk *
chunk_of(void *ptr)
{
	return (Chunk *) ((char *) ptr - CHUNK_HDR);
}

static void
chunk_unlink(Chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

void *
palloc(size_t size)
{
	return chunk_alloc(size, 0);
}

void *
palloc0(size_t size)
{
	return chunk_alloc(size, 1);
}

void *
repalloc(void *ptr, size_t size)
{
	Chunk	   *old = chunk_of(ptr);
	void	   *n = chunk_alloc(size, 0);

	memcpy(n, ptr, old->size < size ? old->size : size);
	pfree(ptr);
	return n;
}

void
pfree(void *ptr)
{
	Chunk	   *c = chunk_of(ptr);

	chunk_unlink(c);
	free(c);
}

char *
pstrdup(const char *s)
{
	return pnstrdup(s, strlen(s));
}

char *
pnstrdup(const char *s, size_t len)
{
	char	   *r = palloc(len + 1);

	memcpy(r, s, len);
	r[len] = '\0';
	return r;
}

void
st_standalone_reset(void)
{
	while (chunks)
	{
		Chunk	   *next = chunks->next;

		free(chunks);
		chunks = next;
	}
}
