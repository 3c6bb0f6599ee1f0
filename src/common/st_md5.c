/*-------------------------------------------------------------------------
 *
 * st_md5.c
 *		MD5 (RFC 1321, https://www.rfc-editor.org/rfc/rfc1321) of a
 *		buffer, in plain C.
 *
 * A stream record's eventID is the MD5 of "<stream id>:<sequence number>"
 * (ops/stream_read.c).  Postgres's md5() goes through its cryptohash
 * layer, which with OpenSSL fetches the digest and sets up a context on
 * every call: with 1000 records an answer, that was a sizeable part of
 * GetRecords (bench/RESULTS.md).  MD5 of a few dozen bytes is one block of
 * 64 steps; done here it costs a fraction of that, with the same digest.
 * Not for anything secret: MD5 names records here, it protects nothing.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "st_md5.h"

/* T[i] = floor(2^32 * |sin(i + 1)|) (RFC 1321, section 3.4) */
static const uint32_t md5_t[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
	0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
	0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
	0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* the left rotations of each round's four steps (section 3.4) */
static const int md5_s[4][4] = {
	{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21},
};

static inline uint32_t
rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

/* one 64-byte block into the state (section 3.4) */
static void
md5_block(uint32_t st[4], const unsigned char *p)
{
	uint32_t	x[16];
	uint32_t	a = st[0],
				b = st[1],
				c = st[2],
				d = st[3];

	/* the block's words, low-order byte first (section 2) */
	for (int i = 0; i < 16; i++)
		x[i] = (uint32_t) p[4 * i] | (uint32_t) p[4 * i + 1] << 8 |
			(uint32_t) p[4 * i + 2] << 16 | (uint32_t) p[4 * i + 3] << 24;
	for (int i = 0; i < 64; i++)
	{
		uint32_t	f;
		int			k;
		uint32_t	t;

		switch (i / 16)
		{
			case 0:				/* F(X,Y,Z) = XY v not(X) Z */
				f = (b & c) | (~b & d);
				k = i;
				break;
			case 1:				/* G(X,Y,Z) = XZ v Y not(Z) */
				f = (b & d) | (c & ~d);
				k = (1 + 5 * i) % 16;
				break;
			case 2:				/* H(X,Y,Z) = X xor Y xor Z */
				f = b ^ c ^ d;
				k = (5 + 3 * i) % 16;
				break;
			default:			/* I(X,Y,Z) = Y xor (X v not(Z)) */
				f = c ^ (b | ~d);
				k = (7 * i) % 16;
				break;
		}
		/* a = b + ((a + f(b,c,d) + X[k] + T[i]) <<< s), then (a,b,c,d) turn */
		t = b + rotl(a + f + x[k] + md5_t[i], md5_s[i / 16][i % 4]);
		a = d;
		d = c;
		c = b;
		b = t;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

void
st_md5(const void *data, size_t len, uint8_t out[ST_MD5_LEN])
{
	const unsigned char *p = data;
	uint32_t	st[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
	unsigned char tail[128];
	size_t		rest;
	size_t		tail_len;
	uint64_t	bits = (uint64_t) len * 8;

	for (; len >= 64; len -= 64, p += 64)
		md5_block(st, p);
	/*
	 * Padding (section 3.1): a 1 bit, 0 bits up to 56 bytes modulo 64, then
	 * the message's length in bits, low-order byte first (section 3.2).
	 */
	rest = len;
	memcpy(tail, p, rest);
	tail[rest] = 0x80;
	tail_len = rest + 1 <= 56 ? 64 : 128;
	memset(tail + rest + 1, 0, tail_len - 8 - rest - 1);
	for (int i = 0; i < 8; i++)
		tail[tail_len - 8 + i] = (unsigned char) (bits >> (8 * i));
	md5_block(st, tail);
	if (tail_len == 128)
		md5_block(st, tail + 64);
	/* the digest: A, B, C, D, each low-order byte first (section 3.5) */
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t) (st[i] >> (8 * j));
}

void
st_md5_hex(const void *data, size_t len, char out[2 * ST_MD5_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t		d[ST_MD5_LEN];

	st_md5(data, len, d);
	for (int i = 0; i < ST_MD5_LEN; i++)
	{
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 0xf];
	}
	out[2 * ST_MD5_LEN] = '\0';
}
