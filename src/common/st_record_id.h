/*-------------------------------------------------------------------------
 *
 * st_record_id.h
 *		A stream record's eventID from its stream and sequence number
 *		(st_record_id.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_RECORD_ID_H
#define ST_RECORD_ID_H

#include <stdint.h>

#define ST_RECORD_ID_LEN 32

/*
 * out = 32 lower-case hex digits (no NUL) naming the record (stream_id,
 * sequence_number): two different pairs never give the same digits.
 */
extern void st_record_id_hex(uint64_t stream_id, uint64_t sequence_number, char out[ST_RECORD_ID_LEN]);

#endif							/* ST_RECORD_ID_H */
