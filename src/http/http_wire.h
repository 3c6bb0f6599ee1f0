/*-------------------------------------------------------------------------
 *
 * http_wire.h
 *		HTTP/1.1 on the wire (http_wire.c): a request's head, a chunked
 *		body, reason phrases.  Plain C: the I/O threads use it, and the
 *		unit tests (test/unit/test_http_wire.c) without a server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_HTTP_WIRE_H
#define ST_HTTP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One request header or query argument, as received. */
typedef struct HttpHeader
{
	const char *name;
	const char *value;
} HttpHeader;

/* A request's head, parsed: its strings in buf, a malloc'd copy. */
typedef struct HttpHead
{
	char	   *buf;
	const char *method;
	const char *url;			/* the path, percent-decoding undone */
	int			minor;			/* HTTP/1.minor: 0 or 1 */
	HttpHeader *headers;		/* malloc'd */
	int			nheaders;
	HttpHeader *query;			/* malloc'd, decoded */
	int			nquery;
} HttpHead;

typedef enum HttpWireResult
{
	WIRE_MORE,
	WIRE_DONE,
	WIRE_BAD
} HttpWireResult;

typedef enum HttpChunkState
{
	CHUNK_SIZE = 0,				/* a chunk-size line */
	CHUNK_DATA,					/* its data */
	CHUNK_DATA_END,				/* the CRLF after it */
	CHUNK_TRAILER				/* after the last chunk: trailer lines */
} HttpChunkState;

/* Where a chunked body's decoding stands (zeroed to start). */
typedef struct HttpChunked
{
	HttpChunkState state;
	uint64_t	left;			/* CHUNK_DATA: bytes of the chunk to come */
	int			trailers;		/* trailer lines read */
} HttpChunked;

extern bool http_wire_is_token(const char *s);
extern size_t http_wire_head_end(const char *in, size_t len, size_t from);
extern const char *http_wire_parse_head(const char *in, size_t len, HttpHead *head);
extern void http_wire_head_free(HttpHead *head);
extern const char *http_wire_header(const HttpHead *head, const char *name);
extern void http_wire_unescape(char *s, bool plus);
extern HttpWireResult http_wire_chunked(HttpChunked *st, const char *in, size_t len,
										size_t *used, const char **data, size_t *data_len);
extern const char *http_wire_reason(int status);

#endif							/* ST_HTTP_WIRE_H */
