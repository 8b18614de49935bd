/* The reports of `tirx bench`: the table on stdout (one form for GEMM rows
 * beside cuBLAS, one for an MLA decode with its bandwidth (and FlashMLA's
 * beside it with --flashmla), one for a FILE's
 * function), the JSON record (--json) and
 * a hand-written SVG bar chart of tirx and cuBLAS per row (--plot). None of
 * them needs a GPU, so the tests write them from made-up rows. */
#include <math.h>
#include <string.h>

#include "bench.h"

double bench_tflops(double flops, const tirx_bench_stats *s)
{
    return flops > 0 && s->median_ms > 0 ? flops / (s->median_ms * 1e-3) / 1e12 : 0;
}

double bench_tbps(double bytes, const tirx_bench_stats *s)
{
    return bytes > 0 && s->median_ms > 0 ? bytes / (s->median_ms * 1e-3) / 1e12 : 0;
}

double bench_ratio(const BenchRow *r)
{
    return r->has_baseline && r->tirx.median_ms > 0 ? r->baseline.median_ms / r->tirx.median_ms : 0;
}

/* ---- the table ---- */

static void print_header(FILE *f, const BenchReport *r)
{
    const tirx_device_info *d = &r->device;
    size_t flush = r->nrows ? r->rows[0].tirx.flush_bytes : 0;
    fprintf(f, "# %s (%s, %d SMs, %lld MiB L2, driver %d.%d); median of CUDA-event times per run",
            d->name, d->arch, d->sm_count, d->l2_bytes >> 20, d->driver_version / 1000,
            d->driver_version % 1000 / 10);
    if (flush)
        fprintf(f, ", L2 flushed (%zu MiB) before each run", flush >> 20);
    fprintf(f, "; clocks not locked\n");
}

static void print_gemm_row(FILE *f, const BenchRow *w)
{
    fprintf(f, "%-22s %-5s %-6s %10.4f %9.1f", w->label, w->dtype, w->layout, w->tirx.median_ms,
            bench_tflops(w->flops, &w->tirx));
    if (w->has_baseline)
        fprintf(f, " %10.4f %9.1f %7.3f\n", w->baseline.median_ms,
                bench_tflops(w->flops, &w->baseline), bench_ratio(w));
    else
        fprintf(f, " %10s %9s %7s\n", "-", "-", "-");
}

static void print_function_row(FILE *f, const BenchRow *w)
{
    fprintf(f, "%-24s %10.4f %10.4f %10.4f %7d", w->label, w->tirx.median_ms, w->tirx.min_ms,
            w->tirx.p90_ms, w->tirx.reps);
    if (w->flops > 0)
        fprintf(f, " %9.1f\n", bench_tflops(w->flops, &w->tirx));
    else
        fprintf(f, " %9s\n", "-");
}

/* An MLA row, its label in a column `width` wide; FlashMLA's columns when
 * `baseline`. */
static void print_mla_row(FILE *f, int width, bool baseline, const BenchRow *w)
{
    fprintf(f, "%-*s %10.4f %10.4f %10.4f %7d %7.3f %9.1f", width, w->label, w->tirx.median_ms,
            w->tirx.min_ms, w->tirx.p90_ms, w->tirx.reps, bench_tbps(w->bytes, &w->tirx),
            bench_tflops(w->flops, &w->tirx));
    if (baseline && w->has_baseline)
        fprintf(f, " %11.4f %7.3f %9.1f %7.3f", w->baseline.median_ms,
                bench_tbps(w->bytes, &w->baseline), bench_tflops(w->flops, &w->baseline),
                bench_ratio(w));
    else if (baseline)
        fprintf(f, " %11s %7s %9s %7s", "-", "-", "-", "-");
    fputc('\n', f);
}

/* The MLA table: the problem column 46 wide, or as wide as its longest
 * label (a sparse row's); FlashMLA's median, TB/s, TFLOP/s and tirx's
 * speed over it (ratio) where a row has them (--flashmla). */
static void print_mla_table(FILE *f, const BenchReport *r)
{
    int width = 46;
    bool baseline = false;
    for (int i = 0; i < r->nrows; i++) {
        width = (int)strlen(r->rows[i].label) > width ? (int)strlen(r->rows[i].label) : width;
        baseline |= r->rows[i].has_baseline;
    }
    fprintf(f, "%-*s %10s %10s %10s %7s %7s %9s", width, "problem", "median ms", "min ms",
            "p90 ms", "runs", "TB/s", "TFLOP/s");
    if (baseline)
        fprintf(f, " %11s %7s %9s %7s", "FlashMLA ms", "TB/s", "TFLOP/s", "ratio");
    fputc('\n', f);
    for (int i = 0; i < r->nrows; i++)
        print_mla_row(f, width, baseline, &r->rows[i]);
}

void bench_print_table(FILE *f, const BenchReport *r)
{
    bool gemm = r->nrows && r->rows[0].m, mla = r->nrows && r->rows[0].bytes > 0;
    print_header(f, r);
    if (mla) {
        print_mla_table(f, r);
        return;
    }
    if (gemm)
        fprintf(f, "%-22s %-5s %-6s %10s %9s %10s %9s %7s\n", "shape", "dtype", "layout",
                "tirx ms", "TFLOP/s", "cuBLAS ms", "TFLOP/s", "ratio");
    else
        fprintf(f, "%-24s %10s %10s %10s %7s %9s\n", "function", "median ms", "min ms", "p90 ms",
                "runs", "TFLOP/s");
    for (int i = 0; i < r->nrows; i++)
        (gemm ? print_gemm_row : print_function_row)(f, &r->rows[i]);
}

/* ---- JSON ---- */

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_stats(FILE *f, const tirx_bench_stats *s, double flops, double bytes)
{
    fprintf(f, "{\"reps\": %d, \"median_ms\": ", s->reps);
    json_number(f, s->median_ms);
    fputs(", \"min_ms\": ", f);
    json_number(f, s->min_ms);
    fputs(", \"p90_ms\": ", f);
    json_number(f, s->p90_ms);
    fputs(", \"mean_ms\": ", f);
    json_number(f, s->mean_ms);
    fputs(", \"max_ms\": ", f);
    json_number(f, s->max_ms);
    fputs(", \"tflops\": ", f);
    if (flops > 0)
        json_number(f, bench_tflops(flops, s));
    else
        fputs("null", f);
    if (bytes > 0) {
        fputs(", \"tbps\": ", f);
        json_number(f, bench_tbps(bytes, s));
    }
    fprintf(f, ", \"l2_flush_bytes\": %zu, \"held\": %s", s->flush_bytes,
            s->held ? "true" : "false");
}

static void json_row(FILE *f, const BenchRow *w)
{
    fputs("    {\"label\": ", f);
    json_string(f, w->label);
    if (w->m) {
        fputs(", \"dtype\": ", f);
        json_string(f, w->dtype);
        fputs(", \"layout\": ", f);
        json_string(f, w->layout);
        fprintf(f, ", \"m\": %lld, \"n\": %lld, \"k\": %lld", w->m, w->n, w->k);
    }
    fputs(", \"flops\": ", f);
    json_number(f, w->flops > 0 ? w->flops : NAN);
    if (w->bytes > 0) {
        fputs(", \"bytes\": ", f);
        json_number(f, w->bytes);
    }
    fputs(",\n     \"check\": ", f);
    if (w->checked) {
        fputs("{\"against\": ", f);
        json_string(f, w->against);
        fputs(", \"rel_l2_error\": ", f);
        json_number(f, w->rel_error);
        fputs(", \"tolerance\": ", f);
        json_number(f, w->tolerance);
        if (w->lse_tolerance > 0) {
            fputs(", \"lse_max_abs_error\": ", f);
            json_number(f, w->lse_error);
            fputs(", \"lse_tolerance\": ", f);
            json_number(f, w->lse_tolerance);
        }
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    fputs(",\n     \"tirx\": ", f);
    json_stats(f, &w->tirx, w->flops, w->bytes);
    /* the baseline: FlashMLA's for MLA rows, else cuBLAS's */
    fprintf(f, "},\n     \"%s\": ", w->bytes > 0 ? "flashmla" : "cublas");
    if (w->has_baseline) {
        json_stats(f, &w->baseline, w->flops, w->bytes);
        if (w->baseline_detail[0]) {
            fputs(", \"algo\": ", f);
            json_string(f, w->baseline_detail);
        }
        fputs("},\n     \"ratio\": ", f);
        json_number(f, bench_ratio(w));
    } else {
        fputs("null,\n     \"ratio\": null", f);
    }
    fputs("}", f);
}

void bench_write_json(FILE *f, const BenchReport *r)
{
    const tirx_device_info *d = &r->device;
    const tirx_bench_options *t = r->timing;
    fprintf(f, "{\n  \"tirx\": ");
    json_string(f, tirx_version());
    fputs(",\n  \"command\": ", f);
    json_string(f, r->command);
    fputs(",\n  \"device\": {\"name\": ", f);
    json_string(f, d->name);
    fputs(", \"arch\": ", f);
    json_string(f, d->arch);
    fprintf(f, ", \"sm_count\": %d, \"l2_bytes\": %lld, \"driver_version\": %d},\n", d->sm_count,
            d->l2_bytes, d->driver_version);
    fputs("  \"method\": {\"timer\": \"CUDA events around each run\", "
          "\"statistic\": \"median\", \"budget_ms\": ", f);
    json_number(f, t->budget_ms > 0 ? t->budget_ms : 1000);
    fputs(", \"warmup_ms\": ", f);
    json_number(f, t->warmup_ms < 0 ? 0 : t->warmup_ms > 0 ? t->warmup_ms : 100);
    fprintf(f, ", \"max_reps\": %d, \"l2_flush\": %s, \"clocks\": \"not locked\"},\n",
            t->max_reps > 0 ? t->max_reps : 10000, t->no_flush ? "false" : "true");
    fputs("  \"rows\": [\n", f);
    for (int i = 0; i < r->nrows; i++) {
        json_row(f, &r->rows[i]);
        fputs(i + 1 < r->nrows ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
}

/* ---- SVG ---- */

#define SVG_LEFT 72
#define SVG_TOP 56
#define SVG_PLOT_H 300
#define SVG_BOTTOM 150
#define SVG_GROUP_W 64
#define SVG_BAR_W 24

static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* 1, 2 or 5 times a power of ten, near range / 5. */
static double nice_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

typedef struct Chart {
    bool tflops; /* else milliseconds */
    double top;  /* the value at the top of the plot */
    int width;
} Chart;

static double chart_value(const Chart *c, const BenchRow *w, const tirx_bench_stats *s)
{
    return c->tflops ? bench_tflops(w->flops, s) : s->median_ms;
}

static double bar_y(const Chart *c, double v)
{
    return SVG_TOP + SVG_PLOT_H - (c->top > 0 ? v / c->top * SVG_PLOT_H : 0);
}

static void svg_bar(FILE *f, const Chart *c, double x, double v, const char *cls, const char *who)
{
    double y = bar_y(c, v);
    fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\">"
               "<title>%s: %.4g %s</title></rect>\n",
            cls, x, y, SVG_BAR_W, SVG_TOP + SVG_PLOT_H - y, who, v, c->tflops ? "TFLOP/s" : "ms");
}

static void svg_group(FILE *f, const Chart *c, const BenchRow *w, int i)
{
    double x = SVG_LEFT + i * SVG_GROUP_W + (SVG_GROUP_W - 2 * SVG_BAR_W) / 2.0;
    double vt = chart_value(c, w, &w->tirx);
    double vc = w->has_baseline ? chart_value(c, w, &w->baseline) : 0;
    svg_bar(f, c, x, vt, "tirx", "tirx");
    if (w->has_baseline) {
        svg_bar(f, c, x + SVG_BAR_W, vc, "cublas", "cuBLAS");
        fprintf(f, "<text class=\"ratio\" x=\"%.1f\" y=\"%.1f\">%.2f\xc3\x97</text>\n",
                x + SVG_BAR_W, bar_y(c, fmax(vt, vc)) - 6, bench_ratio(w));
    }
    double lx = x + SVG_BAR_W, ly = SVG_TOP + SVG_PLOT_H + 14;
    fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-40 %.1f %.1f)\">",
            lx, ly, lx, ly);
    svg_text(f, w->label);
    if (w->dtype[0]) {
        fputc(' ', f);
        svg_text(f, w->dtype);
    }
    fputs("</text>\n", f);
}

static void svg_axis(FILE *f, const Chart *c)
{
    double step = nice_step(c->top), right = c->width - 20;
    for (double v = 0; v <= c->top + step * 1e-9; v += step) {
        double y = bar_y(c, v);
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>\n",
                SVG_LEFT, y, right, y);
        fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%g</text>\n", SVG_LEFT - 6, y + 4, v);
    }
    fprintf(f, "<text class=\"axis\" transform=\"rotate(-90)\" x=\"%d\" y=\"18\">%s</text>\n",
            -(SVG_TOP + SVG_PLOT_H / 2), c->tflops ? "TFLOP/s (higher is better)"
                                                  : "median ms (lower is better)");
}

static Chart chart_of(const BenchReport *r)
{
    Chart c = {.tflops = r->nrows > 0, .width = SVG_LEFT + r->nrows * SVG_GROUP_W + 20};
    if (c.width < 480)
        c.width = 480;
    for (int i = 0; i < r->nrows; i++)
        c.tflops &= r->rows[i].flops > 0;
    double top = 0;
    for (int i = 0; i < r->nrows; i++) {
        const BenchRow *w = &r->rows[i];
        top = fmax(top, chart_value(&c, w, &w->tirx));
        if (w->has_baseline)
            top = fmax(top, chart_value(&c, w, &w->baseline));
    }
    top = top > 0 && isfinite(top) ? top * 1.12 : 1;
    double step = nice_step(top);
    c.top = ceil(top / step) * step;
    return c;
}

void bench_write_svg(FILE *f, const BenchReport *r)
{
    Chart c = chart_of(r);
    int height = SVG_TOP + SVG_PLOT_H + SVG_BOTTOM;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            c.width, height, c.width, height);
    fputs("<style>.tirx{fill:#3b6fb6}.cublas{fill:#a9a9a9}.grid{stroke:#e0e0e0}"
          ".tick{text-anchor:end}.axis{text-anchor:middle}.label{text-anchor:end}"
          ".ratio{text-anchor:middle;font-size:10px}.title{font-size:15px}</style>\n", f);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", c.width, height);
    fprintf(f, "<text class=\"title\" x=\"%d\" y=\"24\">tirx vs cuBLAS on ", SVG_LEFT);
    svg_text(f, r->device.name);
    fputs(" (median per run)</text>\n", f);
    fprintf(f, "<rect class=\"tirx\" x=\"%d\" y=\"34\" width=\"12\" height=\"12\"/>"
               "<text x=\"%d\" y=\"44\">tirx</text>\n", SVG_LEFT, SVG_LEFT + 16);
    fprintf(f, "<rect class=\"cublas\" x=\"%d\" y=\"34\" width=\"12\" height=\"12\"/>"
               "<text x=\"%d\" y=\"44\">cuBLAS</text>\n", SVG_LEFT + 60, SVG_LEFT + 76);
    svg_axis(f, &c);
    for (int i = 0; i < r->nrows; i++)
        svg_group(f, &c, &r->rows[i], i);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", SVG_LEFT,
            SVG_TOP + SVG_PLOT_H, c.width - 20, SVG_TOP + SVG_PLOT_H);
    fputs("</svg>\n", f);
}
