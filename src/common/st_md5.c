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

static inline uint32_t
rotl(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

/* the rounds' functions (section 3.4) */
#define MD5_F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define MD5_G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define MD5_H(x, y, z) ((x) ^ (y) ^ (z))
#define MD5_I(x, y, z) ((y) ^ ((x) | ~(z)))

/*
 * One step, the RFC's [abcd k s i]: a = b + ((a + f(b,c,d) + X[k] + T[i])
 * <<< s).  Written out for the 64 steps, each naming its registers in turn
 * as the RFC does, rather than looping: a loop that picks the function,
 * the word and the shift per step took a quarter longer.
 */
#define MD5_STEP(f, a, b, c, d, k, s, i) \
	((a) = (b) + rotl((a) + MD5_##f((b), (c), (d)) + x[(k)] + md5_t[(i)], (s)))

/* one 64-byte block into the state */
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
	/* round 1 */
	MD5_STEP(F, a, b, c, d, 0, 7, 0);
	MD5_STEP(F, d, a, b, c, 1, 12, 1);
	MD5_STEP(F, c, d, a, b, 2, 17, 2);
	MD5_STEP(F, b, c, d, a, 3, 22, 3);
	MD5_STEP(F, a, b, c, d, 4, 7, 4);
	MD5_STEP(F, d, a, b, c, 5, 12, 5);
	MD5_STEP(F, c, d, a, b, 6, 17, 6);
	MD5_STEP(F, b, c, d, a, 7, 22, 7);
	MD5_STEP(F, a, b, c, d, 8, 7, 8);
	MD5_STEP(F, d, a, b, c, 9, 12, 9);
	MD5_STEP(F, c, d, a, b, 10, 17, 10);
	MD5_STEP(F, b, c, d, a, 11, 22, 11);
	MD5_STEP(F, a, b, c, d, 12, 7, 12);
	MD5_STEP(F, d, a, b, c, 13, 12, 13);
	MD5_STEP(F, c, d, a, b, 14, 17, 14);
	MD5_STEP(F, b, c, d, a, 15, 22, 15);
	/* round 2 */
	MD5_STEP(G, a, b, c, d, 1, 5, 16);
	MD5_STEP(G, d, a, b, c, 6, 9, 17);
	MD5_STEP(G, c, d, a, b, 11, 14, 18);
	MD5_STEP(G, b, c, d, a, 0, 20, 19);
	MD5_STEP(G, a, b, c, d, 5, 5, 20);
	MD5_STEP(G, d, a, b, c, 10, 9, 21);
	MD5_STEP(G, c, d, a, b, 15, 14, 22);
	MD5_STEP(G, b, c, d, a, 4, 20, 23);
	MD5_STEP(G, a, b, c, d, 9, 5, 24);
	MD5_STEP(G, d, a, b, c, 14, 9, 25);
	MD5_STEP(G, c, d, a, b, 3, 14, 26);
	MD5_STEP(G, b, c, d, a, 8, 20, 27);
	MD5_STEP(G, a, b, c, d, 13, 5, 28);
	MD5_STEP(G, d, a, b, c, 2, 9, 29);
	MD5_STEP(G, c, d, a, b, 7, 14, 30);
	MD5_STEP(G, b, c, d, a, 12, 20, 31);
	/* round 3 */
	MD5_STEP(H, a, b, c, d, 5, 4, 32);
	MD5_STEP(H, d, a, b, c, 8, 11, 33);
	MD5_STEP(H, c, d, a, b, 11, 16, 34);
	MD5_STEP(H, b, c, d, a, 14, 23, 35);
	MD5_STEP(H, a, b, c, d, 1, 4, 36);
	MD5_STEP(H, d, a, b, c, 4, 11, 37);
	MD5_STEP(H, c, d, a, b, 7, 16, 38);
	MD5_STEP(H, b, c, d, a, 10, 23, 39);
	MD5_STEP(H, a, b, c, d, 13, 4, 40);
	MD5_STEP(H, d, a, b, c, 0, 11, 41);
	MD5_STEP(H, c, d, a, b, 3, 16, 42);
	MD5_STEP(H, b, c, d, a, 6, 23, 43);
	MD5_STEP(H, a, b, c, d, 9, 4, 44);
	MD5_STEP(H, d, a, b, c, 12, 11, 45);
	MD5_STEP(H, c, d, a, b, 15, 16, 46);
	MD5_STEP(H, b, c, d, a, 2, 23, 47);
	/* round 4 */
	MD5_STEP(I, a, b, c, d, 0, 6, 48);
	MD5_STEP(I, d, a, b, c, 7, 10, 49);
	MD5_STEP(I, c, d, a, b, 14, 15, 50);
	MD5_STEP(I, b, c, d, a, 5, 21, 51);
	MD5_STEP(I, a, b, c, d, 12, 6, 52);
	MD5_STEP(I, d, a, b, c, 3, 10, 53);
	MD5_STEP(I, c, d, a, b, 10, 15, 54);
	MD5_STEP(I, b, c, d, a, 1, 21, 55);
	MD5_STEP(I, a, b, c, d, 8, 6, 56);
	MD5_STEP(I, d, a, b, c, 15, 10, 57);
	MD5_STEP(I, c, d, a, b, 6, 15, 58);
	MD5_STEP(I, b, c, d, a, 13, 21, 59);
	MD5_STEP(I, a, b, c, d, 4, 6, 60);
	MD5_STEP(I, d, a, b, c, 11, 10, 61);
	MD5_STEP(I, c, d, a, b, 2, 15, 62);
	MD5_STEP(I, b, c, d, a, 9, 21, 63);
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
