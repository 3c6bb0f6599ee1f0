/*-------------------------------------------------------------------------
 *
 * studio_template.c
 *		Key templates: "CUST#{customer_id}", "ORDER#{created_at}#{order_id}".
 *
 * A template is literal text and {placeholders}; braces appear only around
 * a placeholder's name.  Formatting fills the placeholders from an entity's
 * attributes (or a pattern's parameters); matching reads them back from a
 * stored key, which is how st_entity_of recognises items and how the checks
 * find example parameters among the stored items.  Overlap is the model
 * checks' question "can these two templates ever form the same key?",
 * answered conservatively from the literal text before the first and after
 * the last placeholder: two templates that differ there never meet.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "studio.h"

static void
template_error(const char *where, const char *text, const char *problem)
{
	st_error(ST_ERR_VALIDATION, "Invalid model: %s: key template \"%s\" %s",
			 where, text, problem);
}

void
studio_template_parse(const char *text, int len, StudioTemplate *tpl, const char *where)
{
	int			i = 0;
	int			cap = 4;

	if (len > STUDIO_TEMPLATE_MAX)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: key template of %d bytes is longer than %d bytes",
				 where, len, STUDIO_TEMPLATE_MAX);
	if (len == 0)
		st_error(ST_ERR_VALIDATION, "Invalid model: %s: key template is empty", where);
	tpl->source = pnstrdup(text, len);
	tpl->nparts = 0;
	tpl->nparams = 0;
	tpl->parts = palloc(sizeof(StudioPart) * cap);
	while (i < len)
	{
		StudioPart	part;

		if (text[i] == '{')
		{
			int			j = i + 1;

			while (j < len && text[j] != '}' && text[j] != '{')
				j++;
			if (j >= len || text[j] == '{')
				template_error(where, tpl->source, "has a '{' without its '}'");
			if (j == i + 1)
				template_error(where, tpl->source, "has an empty placeholder '{}'");
			if (j - i - 1 > STUDIO_NAME_MAX)
				template_error(where, tpl->source, "has a placeholder name longer than 255 bytes");
			part.is_param = true;
			part.text = pnstrdup(text + i + 1, j - i - 1);
			part.len = j - i - 1;
			if (tpl->nparts > 0 && tpl->parts[tpl->nparts - 1].is_param)
				template_error(where, tpl->source,
							   "has two placeholders with nothing between them: their values could not be told apart");
			if (++tpl->nparams > STUDIO_MAX_PARAMS)
				template_error(where, tpl->source, "has more than 32 placeholders");
			i = j + 1;
		}
		else
		{
			int			j = i;

			while (j < len && text[j] != '{')
			{
				if (text[j] == '}')
					template_error(where, tpl->source, "has a '}' without its '{'");
				j++;
			}
			part.is_param = false;
			part.text = pnstrdup(text + i, j - i);
			part.len = j - i;
			i = j;
		}
		if (tpl->nparts == cap)
		{
			cap *= 2;
			tpl->parts = repalloc(tpl->parts, sizeof(StudioPart) * cap);
		}
		tpl->parts[tpl->nparts++] = part;
	}
}

/* A parameter's value as key text: strings as they are, numbers as written. */
static void
append_value(StringInfo buf, const Av *v, const char *name, const char *where)
{
	if (v->type == AV_S || v->type == AV_N || v->type == AV_B)
		appendBinaryStringInfo(buf, v->str, v->len);
	else
		st_error(ST_ERR_VALIDATION,
				 "%s: attribute \"%s\" fills a key template, so it must be a string or a number, not %s",
				 where, name, av_type_name(v->type));
}

char *
studio_template_format(const StudioTemplate *tpl, const Av *params, const char *where)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < tpl->nparts; i++)
	{
		const StudioPart *p = &tpl->parts[i];
		Av		   *v;

		if (!p->is_param)
		{
			appendBinaryStringInfo(&buf, p->text, p->len);
			continue;
		}
		v = params ? av_map_get(params, p->text, p->len) : NULL;
		if (v == NULL)
			st_error(ST_ERR_VALIDATION, "%s: attribute \"%s\" of key template \"%s\" is missing",
					 where, p->text, tpl->source);
		append_value(&buf, v, p->text, where);
	}
	return buf.data;
}

/*
 * Match parts[k..] against s[pos..]; a placeholder takes at least one byte,
 * as few as it can while the rest still matches.  Failures are remembered
 * per (part, position), so a template of many placeholders against a key
 * of many separators takes parts x bytes steps, never exponential ones.
 */
typedef struct MatchState
{
	const StudioTemplate *tpl;
	const char *s;
	int			len;
	char	  **captures;
	char	   *failed;			/* [(nparts + 1) * (len + 1)] */
} MatchState;

static bool
match_from(MatchState *ms, int k, int pos, int ci)
{
	const StudioPart *p;
	int			rest = ms->len - pos;
	char	   *memo;

	if (k == ms->tpl->nparts)
		return rest == 0;
	memo = &ms->failed[k * (ms->len + 1) + pos];
	if (*memo)
		return false;
	p = &ms->tpl->parts[k];
	if (!p->is_param)
	{
		if (rest >= p->len && memcmp(ms->s + pos, p->text, p->len) == 0 &&
			match_from(ms, k + 1, pos + p->len, ci))
			return true;
	}
	else if (k + 1 == ms->tpl->nparts)
	{
		if (rest >= 1)
		{
			if (ms->captures)
				ms->captures[ci] = pnstrdup(ms->s + pos, rest);
			return true;
		}
	}
	else
	{
		/* the next part is a literal (two placeholders never touch) */
		const StudioPart *next = &ms->tpl->parts[k + 1];

		for (int n = 1; n <= rest - next->len; n++)
		{
			if (memcmp(ms->s + pos + n, next->text, next->len) == 0 &&
				match_from(ms, k + 1, pos + n, ci + 1))
			{
				if (ms->captures)
					ms->captures[ci] = pnstrdup(ms->s + pos, n);
				return true;
			}
		}
	}
	*memo = 1;
	return false;
}

bool
studio_template_match(const StudioTemplate *tpl, const char *s, int len, char **captures)
{
	MatchState	ms;
	bool		ok;

	/* no key is longer (DynamoDB's partition key limit; sort keys: 1024) */
	if (len > ST_PK_MAX_BYTES)
		return false;
	ms.tpl = tpl;
	ms.s = s;
	ms.len = len;
	ms.captures = captures;
	ms.failed = palloc0((Size) (tpl->nparts + 1) * (len + 1));
	ok = match_from(&ms, 0, 0, 0);
	pfree(ms.failed);
	return ok;
}

int
studio_template_prefix(const StudioTemplate *tpl, const char **prefix)
{
	if (tpl->nparts == 0 || tpl->parts[0].is_param)
	{
		*prefix = "";
		return 0;
	}
	*prefix = tpl->parts[0].text;
	return tpl->parts[0].len;
}

static int
template_suffix(const StudioTemplate *tpl, const char **suffix)
{
	if (tpl->nparts == 0 || tpl->parts[tpl->nparts - 1].is_param)
	{
		*suffix = "";
		return 0;
	}
	*suffix = tpl->parts[tpl->nparts - 1].text;
	return tpl->parts[tpl->nparts - 1].len;
}

/* Is one of a, b a prefix (or suffix) of the other? */
static bool
compatible(const char *a, int alen, const char *b, int blen, bool at_end)
{
	int			n = Min(alen, blen);

	if (at_end)
		return memcmp(a + alen - n, b + blen - n, n) == 0;
	return memcmp(a, b, n) == 0;
}

bool
studio_templates_overlap(const StudioTemplate *a, const StudioTemplate *b)
{
	const char *pa,
			   *pb;
	int			la,
				lb;

	/* plain literals: the same key only when the same text */
	if (a->nparams == 0 && b->nparams == 0)
		return strcmp(a->source, b->source) == 0;
	if (a->nparams == 0)
		return studio_template_match(b, a->source, strlen(a->source), NULL);
	if (b->nparams == 0)
		return studio_template_match(a, b->source, strlen(b->source), NULL);
	la = studio_template_prefix(a, &pa);
	lb = studio_template_prefix(b, &pb);
	if (!compatible(pa, la, pb, lb, false))
		return false;
	la = template_suffix(a, &pa);
	lb = template_suffix(b, &pb);
	return compatible(pa, la, pb, lb, true);
}

bool
studio_template_may_begin(const StudioTemplate *a, const StudioTemplate *p)
{
	const char *pa,
			   *pp;
	int			la = studio_template_prefix(a, &pa);
	int			lp = studio_template_prefix(p, &pp);

	/* a value of a begins with a value of p only if their literal starts agree */
	if (a->nparams == 0 && p->nparams == 0)
		return la >= lp && memcmp(pa, pp, lp) == 0;
	return compatible(pa, la, pp, lp, false);
}
