/*
 * streams_getrecords_client.c
 *		The C client of bench/streams_getrecords.sh: drains a DynamoDB
 *		stream through one HTTP/1.1 keep-alive connection, with nothing of a
 *		client library, so that the client costs next to nothing beside the
 *		server it measures.
 *
 *   streams_getrecords_client HOST PORT STREAM_ARN
 *
 * DescribeStream (every page of shards), then per shard GetShardIterator
 * TRIM_HORIZON and GetRecords (Limit 1000) until the shard has no next
 * iterator or answers no records, as streams_getrecords.js's drain.  The
 * answers are not parsed as JSON: their text is searched for the members
 * wanted ("ShardId", "LastEvaluatedShardId", "ShardIterator",
 * "NextShardIterator", and each record's "eventName", counted by value),
 * which both servers print as plain JSON strings (the bench's items have
 * no attribute of those names).  Bodies come with Content-Length or
 * chunked.  Prints one line of JSON: the records by event name, the shards,
 * the GetRecords calls and the seconds the whole drain took (connecting
 * included).  Exits 1 on any answer other than 200.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* what an SDK sends; neither server checks the signature in the bench */
#define AUTH "AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/dynamodb/aws4_request, " \
	"SignedHeaders=content-type;host;x-amz-date;x-amz-target, " \
	"Signature=0000000000000000000000000000000000000000000000000000000000000000"

static const char *host;
static const char *port;
static int	sock = -1;

/* bytes received and not yet taken */
static char *in;
static size_t in_cap,
			in_start,
			in_end;

/* the body of the last answer */
static char *body;
static size_t body_len,
			body_cap;

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "streams_getrecords_client: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void
connect_server(void)
{
	struct addrinfo hints = {0},
			   *ai;
	int			one = 1;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai) != 0)
		die("cannot resolve %s", host);
	sock = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (sock < 0 || connect(sock, ai->ai_addr, ai->ai_addrlen) != 0)
		die("cannot connect to %s:%s", host, port);
	setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	freeaddrinfo(ai);
	in_start = in_end = 0;
}

/* receives more bytes (the connection's end is an error: an answer is due) */
static void
fill(void)
{
	ssize_t		n;

	if (in_start > 0 && in_start == in_end)
		in_start = in_end = 0;
	if (in_end == in_cap)
	{
		if (in_start > 0)
		{
			memmove(in, in + in_start, in_end - in_start);
			in_end -= in_start;
			in_start = 0;
		}
		else
		{
			in_cap = in_cap ? 2 * in_cap : 1 << 20;
			in = realloc(in, in_cap);
			if (in == NULL)
				die("out of memory");
		}
	}
	n = recv(sock, in + in_end, in_cap - in_end, 0);
	if (n <= 0)
		die("the server closed the connection");
	in_end += n;
}

/* the next line (without its CRLF), NUL-terminated in place */
static char *
take_line(void)
{
	for (;;)
	{
		char	   *nl = memchr(in + in_start, '\n', in_end - in_start);

		if (nl != NULL)
		{
			char	   *line = in + in_start;

			in_start = nl + 1 - in;
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			return line;
		}
		fill();
	}
}

/* appends the next n bytes to the body */
static void
take_body(size_t n)
{
	if (body_len + n + 1 > body_cap)
	{
		while (body_len + n + 1 > body_cap)
			body_cap = body_cap ? 2 * body_cap : 1 << 20;
		body = realloc(body, body_cap);
		if (body == NULL)
			die("out of memory");
	}
	while (n > 0)
	{
		size_t		k;

		if (in_start == in_end)
			fill();
		k = in_end - in_start < n ? in_end - in_start : n;
		memcpy(body + body_len, in + in_start, k);
		body_len += k;
		in_start += k;
		n -= k;
	}
	body[body_len] = '\0';
}

/* one request of the stream's API; the answer's body in body */
static void
call(const char *op, const char *payload)
{
	char		head[1024];
	int			len;
	size_t		plen = strlen(payload);
	long		content_length = -1;
	int			chunked = 0;
	int			closes = 0;
	int			status;
	char	   *line;

	if (sock < 0)
		connect_server();
	len = snprintf(head, sizeof(head),
				   "POST / HTTP/1.1\r\nHost: %s:%s\r\nContent-Type: application/x-amz-json-1.0\r\n"
				   "X-Amz-Target: DynamoDBStreams_20120810.%s\r\nX-Amz-Date: 20260101T000000Z\r\n"
				   "Authorization: " AUTH "\r\nContent-Length: %zu\r\n\r\n",
				   host, port, op, plen);
	if (send(sock, head, len, MSG_MORE) != len || send(sock, payload, plen, 0) != (ssize_t) plen)
		die("cannot send %s", op);

	line = take_line();
	if (sscanf(line, "HTTP/1.%*d %d", &status) != 1)
		die("not an HTTP answer: %.100s", line);
	while (*(line = take_line()) != '\0')
	{
		if (strncasecmp(line, "Content-Length:", 15) == 0)
			content_length = strtol(line + 15, NULL, 10);
		else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0 && strcasestr(line + 18, "chunked"))
			chunked = 1;
		else if (strncasecmp(line, "Connection:", 11) == 0 && strcasestr(line + 11, "close"))
			closes = 1;
	}
	body_len = 0;
	take_body(0);
	if (chunked)
	{
		for (;;)
		{
			long		n = strtol(take_line(), NULL, 16);

			if (n <= 0)
				break;
			take_body(n);
			take_line();
		}
		/* trailers, to the empty line */
		while (*take_line() != '\0')
			;
	}
	else if (content_length >= 0)
		take_body(content_length);
	else
		die("%s: an answer of no length", op);
	if (closes)
	{
		close(sock);
		sock = -1;
	}
	if (status != 200)
		die("%s: %d %.300s", op, status, body);
}

/*
 * The value of the first member "name" at or after from, a JSON string
 * taken as it is written (escapes and all, so that it can be sent back in
 * JSON as it is); NULL when there is none.  *after is where the search may
 * go on.
 */
static char *
member(const char *from, const char *name, const char **after)
{
	size_t		nlen = strlen(name);
	const char *p = from;

	while ((p = strstr(p, name)) != NULL)
	{
		const char *q = p + nlen;
		const char *end;

		/* "name" as a member: a colon, then a string */
		while (*q == ' ')
			q++;
		if (*q != ':')
		{
			p = q;
			continue;
		}
		q++;
		while (*q == ' ')
			q++;
		if (*q != '"')
		{
			p = q;
			continue;
		}
		q++;
		for (end = q; *end != '"'; end++)
		{
			if (*end == '\0')
				die("an unterminated string in: %.200s", from);
			if (*end == '\\' && end[1] != '\0')
				end++;
		}
		if (after)
			*after = end + 1;
		return strndup(q, end - q);
	}
	return NULL;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const char *arn;
	char	  **shards = NULL;
	int			nshards = 0;
	char	   *start = NULL;
	long		insert = 0,
				modify = 0,
				remove_ = 0,
				calls = 0;
	char	   *req;
	double		t0;

	if (argc != 4)
	{
		fprintf(stderr, "usage: streams_getrecords_client HOST PORT STREAM_ARN\n");
		return 2;
	}
	host = argv[1];
	port = argv[2];
	arn = argv[3];
	req = malloc(strlen(arn) + 8192);
	if (req == NULL)
		die("out of memory");

	t0 = now();
	do
	{
		const char *p;
		char	   *id;

		if (start)
			sprintf(req, "{\"StreamArn\": \"%s\", \"ExclusiveStartShardId\": \"%s\"}", arn, start);
		else
			sprintf(req, "{\"StreamArn\": \"%s\"}", arn);
		call("DescribeStream", req);
		free(start);
		p = body;
		while ((id = member(p, "\"ShardId\"", &p)) != NULL)
		{
			shards = realloc(shards, (nshards + 1) * sizeof(char *));
			shards[nshards++] = id;
		}
		start = member(body, "\"LastEvaluatedShardId\"", NULL);
	} while (start);

	for (int i = 0; i < nshards; i++)
	{
		char	   *it;

		sprintf(req, "{\"StreamArn\": \"%s\", \"ShardId\": \"%s\", \"ShardIteratorType\": \"TRIM_HORIZON\"}",
				arn, shards[i]);
		call("GetShardIterator", req);
		it = member(body, "\"ShardIterator\"", NULL);
		while (it != NULL)
		{
			const char *p = body;
			char	   *name;
			long		records = 0;

			if (strlen(it) > 4096)
				die("a shard iterator of %zu bytes", strlen(it));
			sprintf(req, "{\"ShardIterator\": \"%s\", \"Limit\": 1000}", it);
			free(it);
			call("GetRecords", req);
			calls++;
			while ((name = member(p, "\"eventName\"", &p)) != NULL)
			{
				if (strcmp(name, "INSERT") == 0)
					insert++;
				else if (strcmp(name, "MODIFY") == 0)
					modify++;
				else if (strcmp(name, "REMOVE") == 0)
					remove_++;
				else
					die("an eventName %s", name);
				records++;
				free(name);
			}
			if (records == 0)
				break;
			it = member(p, "\"NextShardIterator\"", NULL);
			if (it == NULL)
				it = member(body, "\"NextShardIterator\"", NULL);
		}
	}
	printf("{\"INSERT\": %ld, \"MODIFY\": %ld, \"REMOVE\": %ld, \"shards\": %d, \"calls\": %ld, \"seconds\": %.6f}\n",
		   insert, modify, remove_, nshards, calls, now() - t0);
	return 0;
}
