/*-------------------------------------------------------------------------
 *
 * fuzz_json.c
 *		libFuzzer target for the export-line reader (src/item/av_json.c):
 *		JSON text straight into a typed item.
 *
 * Any bytes: the reader either returns an item (that copies, compares
 * equal to its copy and measures the same), or fails with
 * a DynamoDB exception and a bounded message -- never a crash, a read past
 * the end of the input (the input is copied into a buffer of exactly its
 * size, which AddressSanitizer guards), a sanitizer report or a leak.
 *
 * It links the pure item sources and test/unit/standalone.c, built with
 * ST_STANDALONE (see test/fuzz/Makefile).
 *
 *-------------------------------------------------------------------------
 */
#include "item/av.h"

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(c) \
	do { \
		if (!(c)) \
		{ \
			fprintf(stderr, "fuzz_json: assertion failed: %s (line %d)\n", #c, __LINE__); \
			__builtin_trap(); \
		} \
	} while (0)

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size > 0 ? size : 1);
	StErr		err;
	Av		   *item;

	if (size > 0)
		memcpy(text, data, size);
	memset(&err, 0, sizeof(err));
	/* the first byte picks a line ({"Item": ...}) or a bare item */
	item = av_item_from_json_text(text, (int) size, size > 0 && (data[0] & 1) ? NULL : "Item", &err);
	if (item != NULL)
	{
		Av		   *copy = av_copy(item);

		FUZZ_ASSERT(item->type == AV_M);
		FUZZ_ASSERT(av_equal(item, copy) && av_equal(copy, item));
		FUZZ_ASSERT(av_item_size(copy) == av_item_size(item));
		FUZZ_ASSERT(av_check_item_size(item, &err) == (av_item_size(item) <= AV_MAX_ITEM_SIZE));
	}
	else
	{
		FUZZ_ASSERT(err.code == ST_ERR_VALIDATION || err.code == ST_ERR_SERIALIZATION);
		FUZZ_ASSERT(err.message[0] != '\0' && strlen(err.message) < ST_ERR_MSG_MAX);
	}
	free(text);
	st_standalone_reset();
	return 0;
}
