/*-------------------------------------------------------------------------
 *
 * st_crc32.h
 *		CRC-32 (the polynomial of zlib, gzip and Ethernet) of a buffer, as
 *		the x-amz-crc32 header carries it (st_crc32.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_CRC32_H
#define ST_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * The CRC-32 of data[0..len) continuing from crc (0 to start): the same
 * value as zlib's crc32(crc, data, len).
 */
extern uint32_t st_crc32(uint32_t crc, const void *data, size_t len);

#endif							/* ST_CRC32_H */
