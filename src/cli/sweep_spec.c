/* Sweep files: parsing (inih, as strictly as scenario files), expansion to
 * points and point ids.  See cli/sweep.h and docs/sweeps.md. */
#include "cli/sweep.h"

#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kernel/variants.h"
#include "lib/fnv.h"
#include "lib/iniline.h"
#include "lib/readfile.h"
#include "lib/strnum.h"
#include "report/report.h"

#define MAX_SWEEP_BYTES (1u << 20)
#define OPT "sweep" /* the option name the points' overrides record */

enum section { SEC_NONE, SEC_SWEEP, SEC_SET, SEC_GRID, SEC_BAD };

struct sparser {
	struct sweep_spec *sp;
	const char *text;
	size_t pos;
	int line;
	enum section sec;
	bool seen_sweep, seen_set, seen_grid;
	char *err;
	size_t errlen;
	int err_line;
};

static void perr(struct sparser *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first error only, as FILE:LINE: key: message. */
static void perr(struct sparser *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ini_verror(p->err, p->errlen, &p->err_line, p->sp->path, p->line, key, fmt, ap);
	va_end(ap);
}

static void section_header(struct sparser *p, const char *line)
{
	char name[128];
	const char *junk;
	int kind = ini_section_header(line, name, sizeof(name), &junk);
	if (!kind)
		return;
	p->sec = SEC_BAD;
	if (kind < 0) {
		perr(p, name, "unexpected text after the section header");
		return;
	}
	bool *seen = NULL;
	if (!strcmp(name, "sweep")) {
		p->sec = SEC_SWEEP;
		seen = &p->seen_sweep;
	} else if (!strcmp(name, "set")) {
		p->sec = SEC_SET;
		seen = &p->seen_set;
	} else if (!strcmp(name, "grid")) {
		p->sec = SEC_GRID;
		seen = &p->seen_grid;
	} else {
		perr(p, name, "unknown section (known: sweep, set, grid)");
		return;
	}
	if (*seen) {
		p->sec = SEC_BAD;
		perr(p, name, "section given twice: a sweep file has each section once");
	}
	*seen = true;
}

/* inih's reader (lib/iniline.h, as the scenario parser's), with the
 * section check on every line. */
static char *sreader(char *str, int num, void *stream)
{
	struct sparser *p = stream;
	bool too_long;
	if (!ini_next_line(p->text, &p->pos, &p->line, str, num, &too_long))
		return NULL;
	if (too_long)
		perr(p, NULL, "line longer than %d characters", num - 2);
	section_header(p, str);
	return str;
}

/* "a, b, \"c,d\"": comma-separated values, blanks around them dropped; a
 * value in double quotes may hold commas (a policy such as bind:0,1).
 * 0, or -1 with @why. */
static int split_list(const char *v, char (*out)[SWEEP_VALUE_MAX], int max, int *n, char *why,
		      size_t len)
{
	const char *s = v;
	*n = 0;
	for (;;) {
		s += strspn(s, " \t");
		const char *b, *e;
		if (*s == '"') {
			b = ++s;
			e = strchr(s, '"');
			if (!e) {
				snprintf(why, len, "a '\"' without its closing '\"'");
				return -1;
			}
			s = e + 1;
			s += strspn(s, " \t");
			if (*s && *s != ',') {
				snprintf(why, len, "text after a quoted value: separate values with ','");
				return -1;
			}
		} else {
			b = s;
			s += strcspn(s, ",\"");
			if (*s == '"') {
				snprintf(why, len, "a '\"' inside a value: quote the whole value");
				return -1;
			}
			e = s;
			while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
		}
		if (e == b) {
			snprintf(why, len, "an empty value in the list");
			return -1;
		}
		if (*n == max) {
			snprintf(why, len, "more than %d values", max);
			return -1;
		}
		if ((size_t)(e - b) >= SWEEP_VALUE_MAX) {
			snprintf(why, len, "a value longer than %d characters", SWEEP_VALUE_MAX - 1);
			return -1;
		}
		snprintf(out[*n], SWEEP_VALUE_MAX, "%.*s", (int)(e - b), b);
		for (int i = 0; i < *n; i++)
			if (!strcmp(out[i], out[*n])) {
				snprintf(why, len, "'%s' given twice", out[*n]);
				return -1;
			}
		(*n)++;
		if (!*s)
			return 0;
		s++; /* the comma */
	}
}

static int parse_seeds(struct sweep_spec *sp, const char *v, char *why, size_t len)
{
	static char items[SWEEP_MAX_SEEDS][SWEEP_VALUE_MAX];
	int n;
	if (split_list(v, items, SWEEP_MAX_SEEDS, &n, why, len))
		return -1;
	sp->nr_seeds = 0;
	for (int i = 0; i < n; i++) {
		char lo_s[SWEEP_VALUE_MAX], *dots = strstr(items[i], "..");
		unsigned long long lo, hi;
		memcpy(lo_s, items[i], sizeof(lo_s));
		if (dots)
			lo_s[dots - items[i]] = '\0';
		if (strnum_ull(lo_s, UINT64_MAX, &lo) || (dots && strnum_ull(dots + 2, UINT64_MAX, &hi))) {
			snprintf(why, len, "'%.100s' is not a seed (a number) or a range of seeds (A..B)", items[i]);
			return -1;
		}
		if (!dots)
			hi = lo;
		if (hi < lo || hi - lo >= (unsigned long long)(SWEEP_MAX_SEEDS - sp->nr_seeds)) {
			snprintf(why, len, "'%.100s': %s", items[i],
				 hi < lo ? "the range runs backwards" : "more than " "1000" " seeds");
			return -1;
		}
		for (unsigned long long s = lo;; s++) {
			for (int j = 0; j < sp->nr_seeds; j++)
				if (sp->seeds[j] == s) {
					snprintf(why, len, "seed %llu given twice", s);
					return -1;
				}
			sp->seeds[sp->nr_seeds++] = s;
			if (s == hi)
				break;
		}
	}
	return 0;
}

static int parse_kernels(struct sweep_spec *sp, const char *v, char *why, size_t len)
{
	static char items[SWEEP_MAX_KERNELS][SWEEP_VALUE_MAX];
	struct kernel_config k[SWEEP_MAX_KERNELS];
	int n;
	if (split_list(v, items, SWEEP_MAX_KERNELS, &n, why, len))
		return -1;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(items[i]);
		if (l >= sizeof(sp->kernels[0])) {
			snprintf(why, len, "a kernel name of %zu characters: at most %zu", l,
				 sizeof(sp->kernels[0]) - 1);
			return -1;
		}
		if (kernel_config_parse(items[i], &k[i], why, len))
			return -1;
		for (int j = 0; j < i; j++)
			if (kernel_config_same(&k[i], &k[j])) {
				snprintf(why, len, "'%.100s' and '%.100s' are the same kernel: give each once",
					 items[j], items[i]);
				return -1;
			}
		memcpy(sp->kernels[i], items[i], l + 1); /* l < sizeof(sp->kernels[i]) */
	}
	sp->nr_kernels = n;
	return 0;
}

/* Keys the [sweep] section owns: not in [set] or [grid]. */
static const char *owned_by_sweep(int k, const struct sweep_spec *sp)
{
	if (k == scenario_key_index("kernel.name"))
		return "kernels";
	if (k == scenario_key_index("run.seed"))
		return "seeds";
	if (k == scenario_key_index("kernel.numa_balancing") && sp->balancing != SWEEP_BAL_ON)
		return "balancing";
	return NULL;
}

/* A [set] or [grid] key: a scenario key, once in the file. */
static int check_key(struct sparser *p, const char *name)
{
	const struct sweep_spec *sp = p->sp;
	int k = scenario_key_index(name);
	if (k < 0) {
		perr(p, name, "unknown scenario key (a tunable's name such as "
		     "numa_balancing.scan_size_mb, or SECTION.KEY such as workload.threads; "
		     "see 'numasim show seed')");
		return -1;
	}
	for (int i = 0; i < sp->nr_set; i++)
		if (scenario_key_index(sp->set[i].key) == k) {
			perr(p, name, "given twice (first at line %d): a sweep gives each key once",
			     sp->set[i].line);
			return -1;
		}
	for (int i = 0; i < sp->nr_grid; i++)
		if (scenario_key_index(sp->grid[i].key) == k) {
			perr(p, name, "given twice (first at line %d): a sweep gives each key once",
			     sp->grid[i].line);
			return -1;
		}
	if (strlen(name) >= sizeof(sp->set[0].key)) {
		perr(p, name, "key too long");
		return -1;
	}
	return 0;
}

static int handle_sweep(struct sparser *p, const char *name, const char *value)
{
	struct sweep_spec *sp = p->sp;
	char why[512];
	int *line = !strcmp(name, "scenario") ? &sp->scenario_line
		  : !strcmp(name, "kernels") ? &sp->kernels_line
		  : !strcmp(name, "seeds") ? &sp->seeds_line
		  : !strcmp(name, "balancing") ? &sp->balancing_line : NULL;
	if (!line) {
		perr(p, name, "unknown key in [sweep] (known: scenario, kernels, seeds, balancing)");
		return 0;
	}
	if (*line) {
		perr(p, name, "given twice (first at line %d): a sweep gives each key once", *line);
		return 0;
	}
	*line = p->line;
	if (!strcmp(name, "scenario")) {
		if (!*value || strlen(value) >= sizeof(sp->scenario)) {
			perr(p, name, "%s", *value ? "too long" : "empty: name a built-in scenario or a file");
			return 0;
		}
		snprintf(sp->scenario, sizeof(sp->scenario), "%s", value);
	} else if (!strcmp(name, "kernels")) {
		if (parse_kernels(sp, value, why, sizeof(why)))
			perr(p, name, "%s", why);
	} else if (!strcmp(name, "seeds")) {
		if (parse_seeds(sp, value, why, sizeof(why)))
			perr(p, name, "%s", why);
	} else {
		if (!strcmp(value, "on"))
			sp->balancing = SWEEP_BAL_ON;
		else if (!strcmp(value, "off"))
			sp->balancing = SWEEP_BAL_OFF;
		else if (!strcmp(value, "both"))
			sp->balancing = SWEEP_BAL_BOTH;
		else
			perr(p, name, "'%s' is not on, off or both", value);
	}
	return !p->err_line;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct sparser *p = user;
	struct sweep_spec *sp = p->sp;
	char why[512];
	(void)section; /* the reader tracks sections (and reports bad ones) */
	switch (p->sec) {
	case SEC_BAD:
		return 1;
	case SEC_NONE:
		perr(p, name, "key outside any section (put it under [sweep], [set] or [grid])");
		return 0;
	case SEC_SWEEP:
		return handle_sweep(p, name, value);
	case SEC_SET:
		if (check_key(p, name))
			return 0;
		if (sp->nr_set == SWEEP_MAX_SETS) {
			perr(p, name, "more than %d keys in [set]", SWEEP_MAX_SETS);
			return 0;
		}
		if (strlen(value) >= SWEEP_VALUE_MAX) {
			perr(p, name, "a value longer than %d characters", SWEEP_VALUE_MAX - 1);
			return 0;
		}
		snprintf(sp->set[sp->nr_set].key, sizeof(sp->set[0].key), "%s", name);
		snprintf(sp->set[sp->nr_set].value, sizeof(sp->set[0].value), "%s", value);
		sp->set[sp->nr_set++].line = p->line;
		return 1;
	case SEC_GRID: {
		if (check_key(p, name))
			return 0;
		if (sp->nr_grid == SWEEP_MAX_GRID) {
			perr(p, name, "more than %d keys in [grid]", SWEEP_MAX_GRID);
			return 0;
		}
		struct sweep_grid *g = &sp->grid[sp->nr_grid];
		if (split_list(value, g->value, SWEEP_MAX_VALUES, &g->nr, why, sizeof(why))) {
			perr(p, name, "%s", why);
			return 0;
		}
		snprintf(g->key, sizeof(g->key), "%s", name);
		g->line = p->line;
		sp->nr_grid++;
		return 1;
	}
	}
	return 0;
}

/* ---- the scenario and the points ------------------------------------------ */

/* "sweep: KEY: why" from scenario_set_option or scenario_validate, at the
 * sweep file's line for KEY; else @fallback_line. */
static void at_line(const struct sweep_spec *sp, const char *msg, int fallback_line,
		    const char *context, char *err, size_t errlen)
{
	int line = fallback_line;
	const char *rest = msg;
	if (!strncmp(msg, OPT ": ", sizeof(OPT ": ") - 1)) {
		rest = msg + sizeof(OPT ": ") - 1;
		char key[96];
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(rest, ":"), rest);
		int k = scenario_key_index(key);
		for (int i = 0; i < sp->nr_set; i++)
			if (scenario_key_index(sp->set[i].key) == k)
				line = sp->set[i].line;
		for (int i = 0; i < sp->nr_grid; i++)
			if (scenario_key_index(sp->grid[i].key) == k)
				line = sp->grid[i].line;
		if (k == scenario_key_index("kernel.name") && sp->kernels_line)
			line = sp->kernels_line;
		if (k == scenario_key_index("run.seed") && sp->seeds_line)
			line = sp->seeds_line;
		if (k == scenario_key_index("kernel.numa_balancing") && sp->balancing_line &&
		    sp->balancing != SWEEP_BAL_ON)
			line = sp->balancing_line;
	}
	snprintf(err, errlen, "%s:%d: %s%s%s%s", sp->path, line, rest, context ? " (" : "",
		 context ? context : "", context ? ")" : "");
}

static int nr_bal(const struct sweep_spec *sp)
{
	return sp->balancing == SWEEP_BAL_BOTH ? 2 : 1;
}

void sweep_point(const struct sweep_spec *sp, int k, struct sweep_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->index = k;
	int nb = nr_bal(sp);
	pt->off = sp->balancing == SWEEP_BAL_OFF || (nb == 2 && k % 2 == 1);
	k /= nb;
	int ns = sp->nr_seeds ? sp->nr_seeds : 1;
	pt->seed = sp->nr_seeds ? k % ns : -1;
	k /= ns;
	for (int g = sp->nr_grid - 1; g >= 0; g--) {
		pt->value[g] = k % sp->grid[g].nr;
		k /= sp->grid[g].nr;
	}
	pt->kernel = sp->nr_kernels ? k : -1;
}

static void describe(const struct sweep_spec *sp, const struct sweep_point *pt, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "point %d: kernel %s", pt->index,
				    pt->kernel >= 0 ? sp->kernels[pt->kernel] : sp->base.kernel);
	for (int g = 0; g < sp->nr_grid && o < len; g++)
		o += (size_t)snprintf(buf + o, len - o, ", %s=%s", sp->grid[g].key,
				      sp->grid[g].value[pt->value[g]]);
	if (o < len)
		snprintf(buf + o, len - o, ", seed %llu, balancing %s",
			 (unsigned long long)(pt->seed >= 0 ? sp->seeds[pt->seed] : sp->base.seed),
			 pt->off ? "off" : "on");
}

int sweep_point_scenario(const struct sweep_spec *sp, const struct sweep_point *pt,
			 struct scenario *sc, char *err, size_t errlen)
{
	char e[1024], ctx[1024], num[32];
	int rc = 0;
	*sc = sp->base;
	if (pt->kernel >= 0)
		rc = scenario_set_option(sc, OPT, "kernel.name", sp->kernels[pt->kernel], e, sizeof(e));
	for (int g = 0; !rc && g < sp->nr_grid; g++)
		rc = scenario_set_option(sc, OPT, sp->grid[g].key, sp->grid[g].value[pt->value[g]], e,
					 sizeof(e));
	if (!rc && pt->seed >= 0) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)sp->seeds[pt->seed]);
		rc = scenario_set_option(sc, OPT, "run.seed", num, e, sizeof(e));
	}
	if (!rc && (pt->off || sp->balancing == SWEEP_BAL_BOTH)) {
		/* on: the scenario's mode, or 1 if it had balancing off (as ab) */
		int on = sp->base.t.numa_balancing ? sp->base.t.numa_balancing : 1;
		snprintf(num, sizeof(num), "%d", pt->off ? 0 : on);
		rc = scenario_set_option(sc, OPT, "kernel.numa_balancing", num, e, sizeof(e));
	}
	if (!rc)
		rc = scenario_validate(sc, e, sizeof(e));
	if (rc) {
		describe(sp, pt, ctx, sizeof(ctx));
		at_line(sp, e, sp->scenario_line, ctx, err, errlen);
		return -1;
	}
	return 0;
}

bool sweep_is_id(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n == SWEEP_ID_LEN;
}

int sweep_scenario_id(const struct scenario *sc, char id[SWEEP_ID_LEN + 1])
{
	struct kernel_config k;
	char why[256];
	if (kernel_config_parse(sc->kernel, &k, why, sizeof(why)))
		return -1;
	json_t *j = report_scenario_json(sc, &k);
	if (!j)
		return -1;
	/* what is simulated, not how the sweep said it */
	json_object_del(j, "source");
	json_object_del(j, "overrides");
	json_object_set_new(j, "numasim_version", json_string(NUMASIM_VERSION));
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(j);
	if (!text)
		return -1;
	uint64_t h = fnv1a64(FNV1A64_INIT, text, strlen(text));
	free(text);
	snprintf(id, SWEEP_ID_LEN + 1, "%016llx", (unsigned long long)h);
	return 0;
}

/* ---- the whole file ---------------------------------------------------------- */

static int check_text(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	int line = 1;
	if (len > MAX_SWEEP_BYTES) {
		snprintf(err, errlen, "%s: more than the %u bytes a sweep file can have", path,
			 MAX_SWEEP_BYTES);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n')
			line++;
		else if (!c || (c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
			snprintf(err, errlen, "%s:%d: %s byte 0x%02x: a sweep file is text", path, line,
				 c ? "a control" : "a NUL", c);
			return -1;
		}
	}
	return 0;
}

int sweep_spec_parse(const char *path, const char *text, size_t len, struct sweep_spec *sp,
		     char *err, size_t errlen)
{
	memset(sp, 0, sizeof(*sp));
	if (strlen(path) >= sizeof(sp->path)) {
		snprintf(err, errlen, "%.64s...: path too long", path);
		return -1;
	}
	snprintf(sp->path, sizeof(sp->path), "%s", path);
	if (check_text(path, text, len, err, errlen))
		return -1;
	struct sparser p = { .sp = sp, .text = text, .err = err, .errlen = errlen };
	int rc = ini_parse_stream(sreader, &p, handler, &p);
	if (rc == -2) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (rc > 0 && (!p.err_line || rc < p.err_line)) {
		snprintf(err, errlen, "%s:%d: expected '[section]' or 'key = value'", path, rc);
		return -1;
	}
	if (p.err_line)
		return -1;
	if (!sp->scenario_line) {
		snprintf(err, errlen, "%s: no 'scenario' in [sweep]: a sweep names the scenario it "
			 "varies (a built-in such as small, or a file)", path);
		return -1;
	}
	/* balancing may come after a [set]/[grid] key it owns: check again */
	for (int i = 0; i < sp->nr_set + sp->nr_grid; i++) {
		const char *key = i < sp->nr_set ? sp->set[i].key : sp->grid[i - sp->nr_set].key;
		int line = i < sp->nr_set ? sp->set[i].line : sp->grid[i - sp->nr_set].line;
		const char *own = owned_by_sweep(scenario_key_index(key), sp);
		if (own) {
			snprintf(err, errlen, "%s:%d: %s: the sweep sets it: use '%s' in [sweep]", path,
				 line, key, own);
			return -1;
		}
	}
	sp->hash = fnv1a64(FNV1A64_INIT, text, len);
	if (sweep_load_scenario(sp, err, errlen))
		return -1;
	char e[1024];
	for (int i = 0; i < sp->nr_set; i++)
		if (scenario_set_option(&sp->base, OPT, sp->set[i].key, sp->set[i].value, e, sizeof(e))) {
			at_line(sp, e, sp->set[i].line, NULL, err, errlen);
			return -1;
		}
	/* each grid value on its own first: a bad one is named at its line */
	for (int g = 0; g < sp->nr_grid; g++)
		for (int v = 0; v < sp->grid[g].nr; v++) {
			struct scenario *sc = malloc(sizeof(*sc));
			if (!sc) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*sc = sp->base;
			int bad = scenario_set_option(sc, OPT, sp->grid[g].key, sp->grid[g].value[v], e, sizeof(e));
			free(sc);
			if (bad) {
				at_line(sp, e, sp->grid[g].line, NULL, err, errlen);
				return -1;
			}
		}
	uint64_t n = (uint64_t)(sp->nr_kernels ? sp->nr_kernels : 1) * (uint64_t)nr_bal(sp) *
		     (uint64_t)(sp->nr_seeds ? sp->nr_seeds : 1);
	for (int g = 0; g < sp->nr_grid && n <= SWEEP_MAX_POINTS; g++)
		n *= (uint64_t)sp->grid[g].nr;
	if (n > SWEEP_MAX_POINTS) {
		snprintf(err, errlen, "%s: more than %d points: split the sweep", path, SWEEP_MAX_POINTS);
		return -1;
	}
	sp->nr_points = (int)n;
	return 0;
}

int sweep_spec_load(const char *path, struct sweep_spec *sp, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (read_input_file(path, MAX_SWEEP_BYTES, &text, &len, err, errlen))
		return -1;
	int rc = sweep_spec_parse(path, text, len, sp, err, errlen);
	free(text);
	return rc;
}
