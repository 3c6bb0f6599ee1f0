/*-------------------------------------------------------------------------
 *
 * av_size.c
 *		Item size by DynamoDB's rules, and the 400 KB item limit.
 *
 * The rules are DynamoDB's documented ones (Developer Guide, "DynamoDB item
 * sizes and formats"):
 *
 *	 item	= sum over attributes of (UTF-8 bytes of the name + size of value)
 *	 S		= UTF-8 bytes of the string
 *	 N		= ceil(significant digits / 2) + 1, leading and trailing zeros
 *			  trimmed ("approximately 1 byte per two significant digits, plus
 *			  1 byte"); zero has no significant digits and is 1 byte
 *	 B		= raw (decoded) bytes
 *	 BOOL, NULL = 1
 *	 L		= 3 + sum over elements of (1 + size of element)
 *	 M		= 3 + sum over members of (1 + UTF-8 bytes of the name + size of
 *			  value)  ("3 bytes of overhead, regardless of its contents" and
 *			  "each element ... requires an additional 1 byte")
 *	 SS, NS, BS = sum of the sizes of the members, no overhead
 *
 * The number rule is the documented approximation.  Measurements of
 * consumed capacity suggest DynamoDB counts digit pairs aligned on the
 * decimal point and adds a byte for negatives (at most 21 bytes); that is
 * not documented, and a number is never more than 21 bytes either way, so
 * the documented rule is what is implemented.
 *
 * The limit: an item may be at most 400 KB (409,600 bytes) by these rules;
 * past it, ValidationException "Item size has exceeded the maximum allowed
 * size".
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#include "av.h"

/* bytes of a number by the documented rule; works on canonical text */
int64
av_number_size(const char *str, int len)
{
	int			first = -1;
	int			ndigits = 0;	/* digits seen, excluding the point */
	int			at_first = 0;
	int			at_last = 0;

	for (int i = 0; i < len; i++)
	{
		char		c = str[i];

		if (c == 'e' || c == 'E')
			break;				/* stored numbers have no exponent; be safe */
		if (c < '0' || c > '9')
			continue;
		if (c != '0')
		{
			if (first < 0)
			{
				first = i;
				at_first = ndigits;
			}
			at_last = ndigits;
		}
		ndigits++;
	}
	if (first < 0)
		return 1;
	return (at_last - at_first + 1 + 1) / 2 + 1;
}

static int64
scalar_size(const Av *v)
{
	switch (v->type)
	{
		case AV_S:
		case AV_B:
			return v->len > 0 ? v->len : 0;
		case AV_N:
			return av_number_size(v->str, v->len);
		default:
			return 1;			/* BOOL, NULL */
	}
}

/*
 * Sizes add up, so the tree is walked with an explicit stack instead of
 * recursion: whatever shape it has, this uses no C stack per level.
 */
int64
av_value_size(const Av *v)
{
	const Av   *local[64];		/* the walk's stack: allocated only past 64 */
	const Av  **stack = local;
	size_t		cap = lengthof(local);
	size_t		top = 0;
	int64		total = 0;

	if (v == NULL)
		return 0;
	/* most attributes are scalars: no walk at all (the traffic counters size every item written) */
	if (av_type_is_scalar(v->type))
		return scalar_size(v);
	stack[top++] = v;
	while (top > 0)
	{
		const Av   *cur = stack[--top];
		size_t		n;

		if (cur == NULL)
			continue;
		n = (size_t) Max(cur->n, 0);
		switch (cur->type)
		{
			case AV_S:
			case AV_N:
			case AV_B:
			case AV_BOOL:
			case AV_NULL:
				total += scalar_size(cur);
				continue;
			case AV_SS:
			case AV_NS:
			case AV_BS:
				for (size_t i = 0; i < n; i++)
					if (cur->items[i] != NULL)
						total += scalar_size(cur->items[i]);
				continue;
			case AV_M:
				total += 3 + (int64) n;
				for (size_t i = 0; i < n; i++)
					total += Max(cur->members[i].name_len, 0);
				break;
			case AV_L:
				total += 3 + (int64) n;
				break;
		}

		/* push the children of M or L */
		if (top + n > cap)
		{
			size_t		old_cap = cap;

			while (top + n > cap)
				cap *= 2;
			if (stack == local)
			{
				stack = palloc(sizeof(const Av *) * cap);
				memcpy(stack, local, sizeof(const Av *) * old_cap);
			}
			else
				stack = repalloc(stack, sizeof(const Av *) * cap);
		}
		for (size_t i = 0; i < n; i++)
			stack[top++] = cur->type == AV_M ? cur->members[i].value : cur->items[i];
	}
	if (stack != local)
		pfree(stack);
	return total;
}

int64
av_item_size(const Av *item)
{
	int64		total = 0;

	if (item == NULL || item->type != AV_M)
		return item == NULL ? 0 : av_value_size(item);
	for (int i = 0; i < item->n; i++)
	{
		total += Max(item->members[i].name_len, 0);
		total += av_value_size(item->members[i].value);
	}
	return total;
}

bool
av_check_item_size(const Av *item, StErr *err)
{
	if (av_item_size(item) > AV_MAX_ITEM_SIZE)
		return st_fail(err, ST_ERR_VALIDATION, "Item size has exceeded the maximum allowed size");
	return true;
}

/*
 * The length of a UTF-8 string in UTF-16 code units, as DynamoDB counts a
 * string's length (size() and the API model's length constraints): one per
 * character, two for a character beyond the Basic Multilingual Plane (a
 * 4-byte UTF-8 sequence); "é𝄞" is 3, not its 6 bytes.
 */
int64
av_utf16_length(const char *s, int len)
{
	int64		n = 0;

	for (int i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if ((c & 0xC0) != 0x80)
			n += c >= 0xF0 ? 2 : 1;
	}
	return n;
}
