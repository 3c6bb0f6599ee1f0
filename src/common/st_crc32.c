/*-------------------------------------------------------------------------
 *
 * st_crc32.c
 *		CRC-32 of a buffer, by carry-less multiplication where the CPU has
 *		it, else by zlib.
 *
 * Every answer of the HTTP endpoint carries the CRC-32 of its body in
 * x-amz-crc32, as DynamoDB's do, and the SDKs check it.  zlib's crc32 is
 * table-driven: for a GetRecords answer of 1000 records (600 kB) it was
 * 6-9% of the worker's time (bench/RESULTS.md).  With PCLMULQDQ (x86-64
 * since 2010) the buffer is folded 128 bytes at a time, eight 128-bit
 * lanes in flight, and only one folded block and the last 0 to 15 bytes
 * go through zlib: a 600 kB buffer took 43 us here against zlib's 102
 * (50 us with four lanes).
 *
 * The folding, in the polynomial arithmetic of CRCs: a 128-bit block V of
 * the message followed by L more bits stands for V(x) * x^L, and modulo
 * the CRC's polynomial P, V(x) * x^D = H(x) * (x^(D+64) mod P) + Lo(x) *
 * (x^D mod P), H and Lo its first and second 64 bits; the right side has
 * fewer than 97 bits, so it can be added (xor) into the block D bits
 * further on without changing the CRC.  The CRC's bit order is reflected
 * (a byte's lowest bit comes first), so the registers hold the polynomials
 * bit-reversed, and a carry-less product of two bit-reversed 64-bit values
 * is the bit-reversed product times x: hence the constants are x^(D+63)
 * and x^(D-1) mod P, bit-reversed.  The CRC's initial register is the
 * same as an xor into the message's first 32 bits, and what is left, one
 * folded block and the tail, has the same CRC as the whole.
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>
#include <zlib.h>

#include "st_crc32.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ST_CRC32_CLMUL 1
#include <immintrin.h>
#endif

#ifdef ST_CRC32_CLMUL

/*
 * The folding constants: x^(D+63) mod P (for the first, higher 64 bits of
 * a lane) and x^(D-1) mod P (for the second), P = 0x104C11DB7, each
 * bit-reversed into 64 bits; D = 1024 to fold a lane over the seven
 * others, D = 128 to fold it into the next.  Computed by repeated
 * multiplication by x; the unit test checks the result against zlib.
 */
#define FOLD_1024_HI UINT64_C(0x7d657a1000000000)
#define FOLD_1024_LO UINT64_C(0x7406fa9500000000)
#define FOLD_128_HI UINT64_C(0x65673b4600000000)
#define FOLD_128_LO UINT64_C(0x9ba54c6f00000000)

__attribute__((target("pclmul,sse2")))
static inline __m128i
fold(__m128i v, __m128i k, __m128i next)
{
	__m128i		hi = _mm_clmulepi64_si128(v, k, 0x00);
	__m128i		lo = _mm_clmulepi64_si128(v, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(hi, lo), next);
}

#define LANES 8

/* len >= 16 * LANES */
__attribute__((target("pclmul,sse2")))
static uint32_t
crc32_clmul(uint32_t crc, const unsigned char *p, size_t len)
{
	const __m128i k1024 = _mm_set_epi64x((long long) FOLD_1024_LO, (long long) FOLD_1024_HI);
	const __m128i k128 = _mm_set_epi64x((long long) FOLD_128_LO, (long long) FOLD_128_HI);
	__m128i		x[LANES];
	unsigned char last[16];

	for (int i = 0; i < LANES; i++)
		x[i] = _mm_loadu_si128((const __m128i *) (p + 16 * i));
	/* the register's start (zlib's state is the complement) into the first bits */
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int) ~crc));
	p += 16 * LANES;
	len -= 16 * LANES;
	while (len >= 16 * LANES)
	{
		for (int i = 0; i < LANES; i++)
			x[i] = fold(x[i], k1024, _mm_loadu_si128((const __m128i *) (p + 16 * i)));
		p += 16 * LANES;
		len -= 16 * LANES;
	}
	for (int i = 1; i < LANES; i++)
		x[i] = fold(x[i - 1], k128, x[i]);
	while (len >= 16)
	{
		x[LANES - 1] = fold(x[LANES - 1], k128, _mm_loadu_si128((const __m128i *) p));
		p += 16;
		len -= 16;
	}
	/* the folded block and the tail, from a zero register (zlib's ~0) */
	_mm_storeu_si128((__m128i *) last, x[LANES - 1]);
	crc = (uint32_t) crc32(0xffffffffUL, last, sizeof(last));
	return (uint32_t) crc32(crc, p, (uInt) len);
}

#endif							/* ST_CRC32_CLMUL */

uint32_t
st_crc32(uint32_t crc, const void *data, size_t len)
{
#ifdef ST_CRC32_CLMUL
	/* a read of what the compiler's runtime found at start: no state here (threads call this) */
	if (len >= 16 * LANES && __builtin_cpu_supports("pclmul"))
		return crc32_clmul(crc, data, len);
#endif
	/* zlib takes at most 4 GB a call (uInt) */
	while (len > 0)
	{
		uInt		n = len > (1U << 30) ? (1U << 30) : (uInt) len;

		crc = (uint32_t) crc32(crc, (const Bytef *) data, n);
		data = (const char *) data + n;
		len -= n;
	}
	return crc;
}
