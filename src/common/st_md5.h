/*-------------------------------------------------------------------------
 *
 * st_md5.h
 *		MD5 (RFC 1321) of a buffer, in plain C (st_md5.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_MD5_H
#define ST_MD5_H

#include <stddef.h>
#include <stdint.h>

#define ST_MD5_LEN 16

/* out = the MD5 digest of data[0..len) */
extern void st_md5(const void *data, size_t len, uint8_t out[ST_MD5_LEN]);

/*
 * out = the same digest as 32 lower-case hex digits and a NUL: what
 * Postgres's md5(text) gives for the same bytes.
 */
extern void st_md5_hex(const void *data, size_t len, char out[2 * ST_MD5_LEN + 1]);

#endif							/* ST_MD5_H */
