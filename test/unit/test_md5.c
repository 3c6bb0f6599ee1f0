/*-------------------------------------------------------------------------
 *
 * test_md5.c
 *		Unit tests of MD5 (src/common/st_md5.c): RFC 1321's test suite
 *		(appendix A.5), the lengths around the padding's boundaries, and
 *		inputs of the shape of a stream record's eventID.
 *
 * The digests other than the RFC's were computed by md5sum; the streams_api
 * regression test compares eventIDs with Postgres's md5() besides.
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>

#include "common/st_md5.h"

#include "unit.h"

static char hex_buf[2 * ST_MD5_LEN + 1];

static const char *
md5_of(const char *s, size_t len)
{
	st_md5_hex(s, len, hex_buf);
	return hex_buf;
}

/* MD5 of n times 'a' */
static const char *
md5_of_as(size_t n)
{
	char	   *s = malloc(n + 1);

	memset(s, 'a', n);
	st_md5_hex(s, n, hex_buf);
	free(s);
	return hex_buf;
}

int
main(void)
{
	uint8_t		raw[ST_MD5_LEN];

	/* RFC 1321, A.5 */
	CHECK_STR(md5_of("", 0), "d41d8cd98f00b204e9800998ecf8427e");
	CHECK_STR(md5_of("a", 1), "0cc175b9c0f1b6a831c399e269772661");
	CHECK_STR(md5_of("abc", 3), "900150983cd24fb0d6963f7d28e17f72");
	CHECK_STR(md5_of("message digest", 14), "f96b697d7cb7938d525a2f31aaf161d0");
	CHECK_STR(md5_of("abcdefghijklmnopqrstuvwxyz", 26), "c3fcd3d76192e4007dfb496cca67e13b");
	CHECK_STR(md5_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 62),
			  "d174ab98d277d9f5a5611c2c9f419d9f");
	CHECK_STR(md5_of("12345678901234567890123456789012345678901234567890123456789012345678901234567890", 80),
			  "57edf4a22be3c955ac49da2e2107b67a");

	/* the padding: one block up to 55 bytes, two from 56; whole blocks */
	CHECK_STR(md5_of_as(55), "ef1772b6dff9a122358552954ad0df65");
	CHECK_STR(md5_of_as(56), "3b0c8ac703f828b04c6c197006d17218");
	CHECK_STR(md5_of_as(63), "b06521f39153d618550606be297466d5");
	CHECK_STR(md5_of_as(64), "014842d480b571495a4a0363793f7367");
	CHECK_STR(md5_of_as(65), "c743a45e0d2e6a95cb859adae0248435");
	CHECK_STR(md5_of_as(119), "8a7bd0732ed6a28ce75f6dabc90e1613");
	CHECK_STR(md5_of_as(120), "5f61c0ccad4cac44c75ff505e1f1e537");
	CHECK_STR(md5_of_as(128), "e510683b3f5ffe4093d021808bc6ff70");

	/* an eventID's input: "<stream id>:<sequence number>" */
	CHECK_STR(md5_of("1:1", 3), "d0bd571dc19c083d82f023c9666c5574");
	CHECK_STR(md5_of("7:100000", 8), "e4c1fce3e84b3168b0eae6818cd8809c");

	/* the raw digest is the hex's bytes */
	st_md5("abc", 3, raw);
	CHECK(raw[0] == 0x90 && raw[1] == 0x01 && raw[15] == 0x72);

	return unit_summary("md5");
}
