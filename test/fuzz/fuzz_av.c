/*-------------------------------------------------------------------------
 *
 * fuzz_av.c
 *		libFuzzer target for the item model: normalisation, numbers,
 *		base64, item size, copy and equality.
 *
 * The fuzz bytes drive a small deterministic decoder that builds an item
 * the way the JSON boundary would (numbers and binary still as text, any
 * nesting, sets possibly empty or with duplicates, strings with any
 * bytes).  The target then checks that normalisation either succeeds and
 * leaves a tree that copies, compares and measures consistently, or fails
 * with a DynamoDB exception and a bounded message -- never a crash, a
 * sanitizer report or a leak.  Whatever bytes are left over are read as
 * two numbers for the arithmetic, whose exactness is checked by undoing
 * the operation.
 *
 * It links the pure item sources and test/unit/standalone.c, built with
 * ST_STANDALONE (see test/fuzz/Makefile).
 *
 *-------------------------------------------------------------------------
 */
#include "item/av.h"
#include "item/number.h"

#include <stdio.h>

/* Deeper than AV_MAX_DEPTH, so that both sides of the limit are reached. */
#define FUZZ_MAX_LEVEL 40

/* Bound the tree so that one input stays fast. */
#define FUZZ_MAX_NODES 4000

typedef struct Src
{
	const uint8_t *p;
	size_t		n;
	int			nodes;
} Src;

#define FUZZ_ASSERT(c) \
	do { \
		if (!(c)) \
		{ \
			fprintf(stderr, "fuzz_av: assertion failed: %s (line %d)\n", #c, __LINE__); \
			__builtin_trap(); \
		} \
	} while (0)

static int
next_byte(Src *s)
{
	if (s->n == 0)
		return 0;
	s->n--;
	return *s->p++;
}

/* Up to max raw bytes, as they come. */
static Av *
raw_text(Src *s, AvType type, int max)
{
	int			len = next_byte(s) % (max + 1);
	char		buf[256];

	for (int i = 0; i < len; i++)
		buf[i] = (char) next_byte(s);
	return av_new_str(type, buf, len);
}

/* Number text from an alphabet that makes real numbers likely. */
static Av *
number_text(Src *s)
{
	static const char alphabet[] = "0123456789012345678900000.-+eE";
	int			mode = next_byte(s) % 4;
	char		buf[256];
	int			len;

	if (mode == 0)
		return raw_text(s, AV_N, 48);
	if (mode == 1)
	{
		/* digits with a large exponent: exercise the limits */
		len = snprintf(buf, sizeof(buf), "%s%d.%de%s%d",
					   next_byte(s) & 1 ? "-" : "",
					   next_byte(s), next_byte(s),
					   next_byte(s) & 1 ? "-" : "+",
					   next_byte(s) * 3 % 300);
		return av_new_str(AV_N, buf, len);
	}
	len = next_byte(s) % 60;
	for (int i = 0; i < len; i++)
		buf[i] = alphabet[next_byte(s) % (sizeof(alphabet) - 1)];
	return av_new_str(AV_N, buf, len);
}

/* Base64 text: usually well formed, sometimes not. */
static Av *
binary_text(Src *s)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
	int			mode = next_byte(s) % 3;
	char		buf[256];
	int			len;

	if (mode == 0)
	{
		char		bytes[64];
		int			n = next_byte(s) % 48;
		int			tlen;
		char	   *text;

		for (int i = 0; i < n; i++)
			bytes[i] = (char) next_byte(s);
		text = av_base64_encode(bytes, n, &tlen);
		FUZZ_ASSERT(text != NULL);
		return av_new_str(AV_B, text, tlen);
	}
	if (mode == 1)
		return raw_text(s, AV_B, 24);
	len = next_byte(s) % 40;
	for (int i = 0; i < len; i++)
		buf[i] = alphabet[next_byte(s) % (sizeof(alphabet) - 1)];
	return av_new_str(AV_B, buf, len);
}

static Av *
scalar(Src *s, AvType type)
{
	switch (type)
	{
		case AV_N:
			return number_text(s);
		case AV_B:
			return binary_text(s);
		default:
			return raw_text(s, AV_S, 12);
	}
}

static Av *build(Src *s, int level);

static Av *
build_map(Src *s, int level)
{
	Av		   *m = av_new(AV_M);
	int			count = next_byte(s) % 6;

	for (int i = 0; i < count; i++)
	{
		char		name[4];
		int			nlen = next_byte(s) % 4;

		for (int k = 0; k < nlen; k++)
			name[k] = (char) ("abc\0"[next_byte(s) % 4]);
		/* names distinct, as a JSON object's keys are */
		if (av_map_get(m, name, nlen) != NULL)
			continue;
		av_map_put_nocheck(m, name, nlen, build(s, level + 1));
	}
	return m;
}

static Av *
build(Src *s, int level)
{
	int			t = next_byte(s) % 12;
	Av		   *v;
	int			count;

	s->nodes++;
	if (level >= FUZZ_MAX_LEVEL || s->nodes > FUZZ_MAX_NODES || s->n == 0)
		t = t % 5;				/* a scalar */
	switch (t)
	{
		case 0:
			return scalar(s, AV_S);
		case 1:
			return scalar(s, AV_N);
		case 2:
			return scalar(s, AV_B);
		case 3:
			return av_new_bool(next_byte(s) & 1);
		case 4:
			return av_new_null();
		case 5:
		case 10:
			return build_map(s, level);
		case 6:
		case 11:
			v = av_new(AV_L);
			count = next_byte(s) % 5;
			for (int i = 0; i < count; i++)
				av_append(v, build(s, level + 1));
			return v;
		default:
			{
				AvType		st = (AvType) (AV_SS + (t - 7));

				v = av_new(st);
				count = next_byte(s) % 6;
				for (int i = 0; i < count; i++)
					av_append(v, scalar(s, av_set_member_type(st)));
				return v;
			}
	}
}

/* Every stored number is canonical: reformatting gives the same text. */
static void
check_stored(const Av *v)
{
	char		buf[NUM_TEXT_MAX];
	StErr		err;

	switch (v->type)
	{
		case AV_N:
			{
				int			n = st_num_canonical(v->str, v->len, buf, &err);

				FUZZ_ASSERT(n == v->len && memcmp(buf, v->str, n) == 0);
				break;
			}
		case AV_S:
			FUZZ_ASSERT(v->len == 0 || memchr(v->str, '\0', v->len) == NULL);
			break;
		case AV_M:
			for (int i = 0; i < v->n; i++)
				check_stored(v->members[i].value);
			break;
		case AV_L:
		case AV_SS:
		case AV_NS:
		case AV_BS:
			FUZZ_ASSERT(!av_type_is_set(v->type) || v->n > 0);
			for (int i = 0; i < v->n; i++)
			{
				check_stored(v->items[i]);
				/* members distinct */
				if (av_type_is_set(v->type))
					for (int k = 0; k < i; k++)
						FUZZ_ASSERT(av_compare_scalar(v->items[k], v->items[i]) != 0);
			}
			break;
		default:
			break;
	}
}

static void
check_arithmetic(Src *s)
{
	Av		   *ta = number_text(s);
	Av		   *tb = number_text(s);
	StNum		a,
				b,
				r,
				back;
	StErr		err;
	char		buf[NUM_TEXT_MAX];
	int			len;

	if (!st_num_parse(ta->str, ta->len, &a, &err) || !st_num_parse(tb->str, tb->len, &b, &err))
		return;
	if (st_num_add(&a, &b, &r, &err))
	{
		/* exact: (a + b) - b == a, and the text round-trips */
		len = st_num_format(&r, buf);
		FUZZ_ASSERT(len > 0 && len < NUM_TEXT_MAX);
		if (st_num_sub(&r, &b, &back, &err))
			FUZZ_ASSERT(st_num_cmp(&back, &a) == 0);
		FUZZ_ASSERT(st_num_parse(buf, len, &back, &err) && st_num_cmp(&back, &r) == 0);
	}
	else
		FUZZ_ASSERT(err.code == ST_ERR_VALIDATION);
	if (st_num_sub(&a, &b, &r, &err))
	{
		int			sign = r.ndigits == 0 ? 0 : (r.neg ? -1 : 1);
		int			c = st_num_cmp(&a, &b);

		/* exact, so the sign of a - b is the order of a and b */
		FUZZ_ASSERT(sign == (c > 0) - (c < 0));
		if (st_num_add(&r, &b, &back, &err))
			FUZZ_ASSERT(st_num_cmp(&back, &a) == 0);
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Src			s = {data, size, 0};
	Av		   *item;
	Av		   *raw;
	StErr		err;

	item = build_map(&s, 0);
	raw = av_copy(item);
	(void) av_value_size(raw);

	memset(&err, 0, sizeof(err));
	if (av_normalize(item, 0, &err))
	{
		int64		size1 = av_item_size(item);
		Av		   *copy = av_copy(item);

		FUZZ_ASSERT(size1 >= 0);
		FUZZ_ASSERT(av_equal(item, copy) && av_equal(copy, item));
		FUZZ_ASSERT(av_item_size(copy) == size1);
		FUZZ_ASSERT(av_check_item_size(item, &err) == (size1 <= AV_MAX_ITEM_SIZE));
		check_stored(item);
	}
	else
	{
		FUZZ_ASSERT(err.code == ST_ERR_VALIDATION || err.code == ST_ERR_SERIALIZATION);
		FUZZ_ASSERT(err.message[0] != '\0' && strlen(err.message) < ST_ERR_MSG_MAX);
	}

	check_arithmetic(&s);

	st_standalone_reset();
	return 0;
}
