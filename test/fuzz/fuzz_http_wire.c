/*-------------------------------------------------------------------------
 *
 * fuzz_http_wire.c
 *		libFuzzer target for the endpoint's HTTP/1.1 reader
 *		(src/http/http_wire.c): a request's head and a chunked body.
 *
 * Any bytes, as a client sends them: the head's end is looked for as the
 * I/O thread does (a piece at a time, resuming where it looked), the head
 * parsed (its strings within it, every header name a token, no control
 * character in a value), and what follows decoded as a chunked body fed in
 * pieces, whose data never exceeds its input; never a crash, a read past
 * the input (copied into a buffer of exactly its size, which
 * AddressSanitizer guards), a sanitizer report or a leak.
 *
 *-------------------------------------------------------------------------
 */
#include "http/http_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(c) \
	do { \
		if (!(c)) \
		{ \
			fprintf(stderr, "fuzz_http_wire: assertion failed: %s (line %d)\n", #c, __LINE__); \
			__builtin_trap(); \
		} \
	} while (0)

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *in = malloc(size > 0 ? size : 1);
	size_t		end = 0;
	size_t		step = size > 0 ? (data[0] % 16) + 1 : 1;
	HttpHead	head;

	if (size > 0)
		memcpy(in, data, size);

	/*
	 * the head's end, found as its bytes arrive step at a time: where a
	 * scan of the same bytes from their start finds it
	 */
	for (size_t have = step, from = 0;; have += step)
	{
		if (have > size)
			have = size;
		end = http_wire_head_end(in, have, from);
		FUZZ_ASSERT(end <= have);
		FUZZ_ASSERT(end == http_wire_head_end(in, have, 0));
		if (end != 0 || have == size)
			break;
		from = have;
	}
	if (end > 0 && http_wire_parse_head(in, end, &head) == NULL)
	{
		FUZZ_ASSERT(head.method != NULL && head.url != NULL);
		FUZZ_ASSERT(head.minor == 0 || head.minor == 1);
		FUZZ_ASSERT(http_wire_is_token(head.method));
		for (int i = 0; i < head.nheaders; i++)
		{
			FUZZ_ASSERT(http_wire_is_token(head.headers[i].name));
			for (const char *v = head.headers[i].value; *v; v++)
				FUZZ_ASSERT((unsigned char) *v >= 0x20 || *v == '\t');
		}
		for (int i = 0; i < head.nquery; i++)
			FUZZ_ASSERT(head.query[i].name != NULL && head.query[i].value != NULL);
		(void) http_wire_header(&head, "Content-Length");
		http_wire_head_free(&head);
	}

	/* the rest as a chunked body, fed step bytes more each time */
	{
		HttpChunked st;
		size_t		pos = end;
		size_t		have = end;
		size_t		body = 0;

		memset(&st, 0, sizeof(st));
		for (;;)
		{
			const char *d;
			size_t		dl;
			size_t		used;
			HttpWireResult r;

			r = http_wire_chunked(&st, in + pos, have - pos, &used, &d, &dl);
			FUZZ_ASSERT(used <= have - pos);
			FUZZ_ASSERT(dl == 0 || (d >= in + pos && d + dl <= in + pos + used));
			body += dl;
			pos += used;
			if (r != WIRE_MORE)
				break;
			if (used == 0 && dl == 0)
			{
				if (have == size)
					break;
				have = have + step > size ? size : have + step;
			}
		}
		FUZZ_ASSERT(body <= size);
	}
	free(in);
	return 0;
}
