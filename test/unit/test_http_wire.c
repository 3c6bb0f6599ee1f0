/*-------------------------------------------------------------------------
 *
 * test_http_wire.c
 *		Unit tests of the endpoint's HTTP/1.1 reader (src/http/http_wire.c):
 *		heads that are served and heads refused as RFC 9112 lets a server
 *		refuse them, percent-decoding, and chunked bodies split anywhere.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "http/http_wire.h"

#include "unit.h"

/* Parse a whole head; NULL when served, else why not. */
static const char *
parse(const char *text, HttpHead *head)
{
	size_t		end = http_wire_head_end(text, strlen(text), 0);

	if (end == 0)
		return "incomplete";
	return http_wire_parse_head(text, end, head);
}

/* A chunked body decoded from text fed n bytes more at a time. */
static HttpWireResult
dechunk(const char *text, size_t n, char *out, size_t *out_len, size_t *consumed)
{
	HttpChunked st = {0};
	size_t		len = strlen(text);
	size_t		have = n < len ? n : len;
	size_t		pos = 0;

	*out_len = 0;
	for (;;)
	{
		const char *d;
		size_t		dl;
		size_t		used;
		HttpWireResult r = http_wire_chunked(&st, text + pos, have - pos, &used, &d, &dl);

		memcpy(out + *out_len, d ? d : "", dl);
		*out_len += dl;
		pos += used;
		if (r != WIRE_MORE)
		{
			*consumed = pos;
			return r;
		}
		if (used == 0 && dl == 0)
		{
			if (have == len)
			{
				*consumed = pos;
				return WIRE_MORE;
			}
			have = have + n < len ? have + n : len;
		}
	}
}

int
main(void)
{
	HttpHead	h;
	char		buf[256];
	char		out[256];
	size_t		out_len;
	size_t		used;

	/* a request as an SDK sends it */
	CHECK(parse("POST / HTTP/1.1\r\nHost: localhost:8000\r\nX-Amz-Target:  DynamoDB_20120810.GetItem \r\n"
				"Content-Length: 2\r\n\r\n{}", &h) == NULL);
	CHECK_STR(h.method, "POST");
	CHECK_STR(h.url, "/");
	CHECK(h.minor == 1 && h.nheaders == 3 && h.nquery == 0);
	CHECK_STR(http_wire_header(&h, "x-amz-target"), "DynamoDB_20120810.GetItem");
	CHECK_STR(http_wire_header(&h, "HOST"), "localhost:8000");
	CHECK(http_wire_header(&h, "Origin") == NULL);
	http_wire_head_free(&h);

	/* the head ends at its empty line, CRLF or bare LF */
	CHECK(http_wire_head_end("GET / HTTP/1.1\r\nHost: x\r\n\r\nrest", 31, 0) == 27);
	CHECK(http_wire_head_end("GET / HTTP/1.1\nHost: x\n\nrest", 28, 0) == 24);
	CHECK(http_wire_head_end("GET / HTTP/1.1\r\nHost: x\r\n", 25, 0) == 0);
	/* looked for again from where the last look stopped */
	CHECK(http_wire_head_end("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, 25) == 27);
	CHECK(http_wire_head_end("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, 26) == 27);

	/* HTTP/1.0, a path and query decoded */
	CHECK(parse("GET /studio/a%20b.js?x=1&y=a+b%2Bc&flag&=v HTTP/1.0\r\n\r\n", &h) == NULL);
	CHECK(h.minor == 0);
	CHECK_STR(h.url, "/studio/a b.js");
	CHECK(h.nquery == 4);
	CHECK_STR(h.query[0].name, "x");
	CHECK_STR(h.query[0].value, "1");
	CHECK_STR(h.query[1].value, "a b+c");
	CHECK_STR(h.query[2].name, "flag");
	CHECK_STR(h.query[2].value, "");
	CHECK_STR(h.query[3].name, "");
	http_wire_head_free(&h);

	/* percent-decoding leaves what is not an escape */
	strcpy(buf, "a%2x%41%%4");
	http_wire_unescape(buf, false);
	CHECK_STR(buf, "a%2xA%%4");

	/* empty lines before the request line are ignored */
	CHECK(parse("\r\n\r\nGET / HTTP/1.1\r\n\r\n", &h) != NULL);	/* the first empty line ends it */
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nA:\r\n\r\n", &h) == NULL);
	CHECK_STR(http_wire_header(&h, "A"), "");
	http_wire_head_free(&h);

	/* refused */
	CHECK_STR(parse("GET / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", &h), "Invalid header field name");
	CHECK_STR(parse("GET / HTTP/1.1\r\n: x\r\n\r\n", &h), "Invalid header field name");
	CHECK_STR(parse("GET / HTTP/1.1\r\nNo colon\r\n\r\n", &h), "Invalid header field");
	CHECK_STR(parse("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", &h), "Obsolete line folding");
	CHECK_STR(parse("GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", &h), "Invalid character in the request's head");
	CHECK_STR(parse("GET / HTTP/1.1\r\nA: b\001\r\n\r\n", &h), "Invalid character in the request's head");
	CHECK(parse("GET / HTTP/1.1\r\nHost: x\r\nA: b\tc\r\n\r\n", &h) == NULL);	/* a tab is allowed */
	http_wire_head_free(&h);
	CHECK_STR(parse("GET / HTTP/2.0\r\n\r\n", &h), "Unsupported HTTP version");
	CHECK_STR(parse("GET / HTTP/1.1 \r\n\r\n", &h), "Unsupported HTTP version");
	CHECK_STR(parse("GET  / HTTP/1.1\r\n\r\n", &h), "Malformed request line");
	CHECK_STR(parse("GET /a\tb HTTP/1.1\r\n\r\n", &h), "Invalid character in the request's head");
	CHECK_STR(parse("G(T / HTTP/1.1\r\n\r\n", &h), "Malformed request line");
	CHECK_STR(parse("GET /\x80 HTTP/1.1\r\n\r\n", &h), "Malformed request line");
	CHECK_STR(parse("GET\r\n\r\n", &h), "Malformed request line");
	CHECK(h.buf == NULL && h.headers == NULL);	/* nothing left to free */
	CHECK_STR(parse("GET / HTTP/1.1\r\nA: b\r\n\r\n", &h), "Missing Host header");
	CHECK(parse("GET / HTTP/1.0\r\nA: b\r\n\r\n", &h) == NULL);	/* HTTP/1.0 needs none */
	http_wire_head_free(&h);
	{
		/* 256 fields and arguments are taken, more are not */
		char	   *big = malloc(8192);
		size_t		o = 0;

		o += sprintf(big + o, "GET /?");
		for (int i = 0; i < 256; i++)
			o += sprintf(big + o, "a=%d&", i);
		o += sprintf(big + o, "z HTTP/1.1\r\nHost: x\r\n\r\n");
		CHECK_STR(parse(big, &h), "Too many query arguments");
		o = sprintf(big, "GET /?a&b HTTP/1.1\r\nHost: x\r\n");
		for (int i = 0; i < 255; i++)
			o += sprintf(big + o, "H%d: v\r\n", i);
		strcpy(big + o, "\r\n");
		CHECK(parse(big, &h) == NULL && h.nheaders == 256 && h.nquery == 2);
		http_wire_head_free(&h);
		strcpy(big + o, "One-more: v\r\n\r\n");
		CHECK_STR(parse(big, &h), "Too many header fields");
		free(big);
	}

	/* chunked: any split of the input gives the same body */
	for (size_t n = 1; n <= 40; n++)
	{
		CHECK(dechunk("2\r\n{}\r\nA;ext=1\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT", n, out, &out_len, &used) == WIRE_DONE);
		CHECK(out_len == 12 && memcmp(out, "{}0123456789", 12) == 0);
		CHECK(used == strlen("2\r\n{}\r\nA;ext=1\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n"));
	}
	/* the chunked coding's lines end with CRLF (RFC 9112, 7.1) */
	CHECK(dechunk("2\n{}\r\n0\r\n\r\n", 3, out, &out_len, &used) == WIRE_BAD);
	CHECK(dechunk("2\r\n{}\n0\r\n\r\n", 3, out, &out_len, &used) == WIRE_BAD);
	CHECK(dechunk("2\r\n{}\r\n0\r\nT: x\n\r\n", 3, out, &out_len, &used) == WIRE_BAD);
	/* whitespace after the size only before an extension */
	CHECK(dechunk("2 \r\n{}\r\n0\r\n\r\n", 100, out, &out_len, &used) == WIRE_BAD);
	CHECK(dechunk("2 ;a=b\r\n{}\r\n0\r\n\r\n", 100, out, &out_len, &used) == WIRE_DONE && out_len == 2);
	{
		/* at most 64 trailer lines */
		char		t[2048];
		size_t		o = sprintf(t, "0\r\n");

		for (int i = 0; i < 64; i++)
			o += sprintf(t + o, "T: v\r\n");
		strcpy(t + o, "\r\n");
		CHECK(dechunk(t, 100, out, &out_len, &used) == WIRE_DONE);
		strcpy(t + o, "T: v\r\n\r\n");
		CHECK(dechunk(t, 100, out, &out_len, &used) == WIRE_BAD);
	}
	CHECK(dechunk("2\r\n{}\r\n", 100, out, &out_len, &used) == WIRE_MORE);	/* no last chunk yet */
	CHECK(dechunk("x\r\n\r\n", 100, out, &out_len, &used) == WIRE_BAD);
	CHECK(dechunk("2 x\r\n{}\r\n0\r\n\r\n", 100, out, &out_len, &used) == WIRE_BAD);
	CHECK(dechunk("2\r\n{}XX0\r\n\r\n", 100, out, &out_len, &used) == WIRE_BAD);	/* no CRLF after the data */
	CHECK(dechunk("1000000000000000\r\n", 100, out, &out_len, &used) == WIRE_BAD);	/* 16 hex digits */
	CHECK(dechunk("FFFFFFFFFFFFFFF\r\nab", 100, out, &out_len, &used) == WIRE_MORE && out_len == 2);
	{
		/* a size line longer than the bound */
		char	   *line = malloc(6000);

		memset(line, '0', 5998);
		line[5998] = '\0';
		CHECK(dechunk(line, 6000, out, &out_len, &used) == WIRE_BAD);
		free(line);
	}

	CHECK_STR(http_wire_reason(431), "Request Header Fields Too Large");
	CHECK(http_wire_is_token("X-Amz-Target") && !http_wire_is_token("A B") && !http_wire_is_token(""));
	return unit_summary("http_wire");
}
