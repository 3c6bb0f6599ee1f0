/*-------------------------------------------------------------------------
 *
 * test_record_id.c
 *		Unit tests of a stream record's eventID (src/common/st_record_id.c)
 *		and of the CRC-32 of the endpoint's answers (src/common/st_crc32.c).
 *
 * The eventIDs below were computed by an independent implementation of the
 * same mix (in Python, from its description); the CRC-32s are compared
 * with zlib's, over every length up to a few kilobytes, at several
 * alignments and starting values, so that both the folding and the tails
 * are covered.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <zlib.h>

#include "common/st_crc32.h"
#include "common/st_record_id.h"

#include "unit.h"

static char id_buf[ST_RECORD_ID_LEN + 1];

static const char *
id_of(uint64_t stream_id, uint64_t seq)
{
	st_record_id_hex(stream_id, seq, id_buf);
	id_buf[ST_RECORD_ID_LEN] = '\0';
	return id_buf;
}

static int
cmp_id(const void *a, const void *b)
{
	return memcmp(a, b, ST_RECORD_ID_LEN);
}

/* a small deterministic generator, so that failures repeat */
static uint32_t rng_state = 12345;

static uint32_t
rng(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

int
main(void)
{
	enum
	{
		STREAMS = 40, SEQS = 5000
	};
	char	   *ids = malloc((size_t) STREAMS * SEQS * ST_RECORD_ID_LEN);
	int			dups = 0;
	int			bad_digits = 0;
	size_t		big = 1 << 20;
	unsigned char *buf = malloc(big);
	int			crc_mismatches = 0;

	/* eventIDs: fixed values */
	CHECK_STR(id_of(1, 1), "92842eca9146a646c51e9aa03802868a");
	CHECK_STR(id_of(1, 2), "acb87ef84ecd135dd3e217aa83e35592");
	CHECK_STR(id_of(2, 1), "314b7ad8211c994ee2bbf3eb5675cf32");
	CHECK_STR(id_of(7, 100000), "89c6dbea61bf47fb5fd4c6a13a8f68d1");
	CHECK_STR(id_of(0, 0), "96b6979ee2948716b382a305f4414f5e");
	CHECK_STR(id_of(INT64_MAX, INT64_MAX), "8919014d73b34f2b9026a3c45d938203");
	CHECK_STR(id_of(UINT64_MAX, UINT64_MAX), "fcb81cbf63a2245788b209c2bd7f91d2");

	/* 200,000 neighbouring records: lower-case hex, no two alike */
	for (int s = 0; s < STREAMS; s++)
		for (int q = 0; q < SEQS; q++)
		{
			char	   *id = ids + ((size_t) s * SEQS + q) * ST_RECORD_ID_LEN;

			st_record_id_hex((uint64_t) s + 1, (uint64_t) q * 1000 + 1, id);
			for (int i = 0; i < ST_RECORD_ID_LEN; i++)
				if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
					bad_digits++;
		}
	qsort(ids, (size_t) STREAMS * SEQS, ST_RECORD_ID_LEN, cmp_id);
	for (size_t i = 1; i < (size_t) STREAMS * SEQS; i++)
		if (memcmp(ids + (i - 1) * ST_RECORD_ID_LEN, ids + i * ST_RECORD_ID_LEN, ST_RECORD_ID_LEN) == 0)
			dups++;
	CHECK(bad_digits == 0);
	CHECK(dups == 0);
	free(ids);

	/* CRC-32: the check value of the standard ("123456789") */
	CHECK(st_crc32(0, "123456789", 9) == 0xcbf43926u);
	CHECK(st_crc32(0, "", 0) == 0);

	/* every length to 3000, three alignments, a random starting value */
	for (size_t i = 0; i < big; i++)
		buf[i] = (unsigned char) rng();
	for (size_t len = 0; len <= 3000; len++)
		for (int off = 0; off < 3; off++)
		{
			uint32_t	start = rng();

			if (st_crc32(start, buf + off, len) != (uint32_t) crc32(start, buf + off, (uInt) len))
				crc_mismatches++;
		}
	CHECK(crc_mismatches == 0);

	/* a whole megabyte, and the same in two pieces (the second continues the first) */
	CHECK(st_crc32(0, buf, big) == (uint32_t) crc32(0, buf, (uInt) big));
	CHECK(st_crc32(st_crc32(0, buf, 333333), buf + 333333, big - 333333) == (uint32_t) crc32(0, buf, (uInt) big));
	/* bytes of all ones and all zeros (no lane may cancel another) */
	memset(buf, 0xff, 4096);
	CHECK(st_crc32(0, buf, 4096) == (uint32_t) crc32(0, buf, 4096));
	memset(buf, 0, 4096);
	CHECK(st_crc32(0, buf, 4096) == (uint32_t) crc32(0, buf, 4096));
	free(buf);

	return unit_summary("record_id");
}
