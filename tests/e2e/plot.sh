#!/usr/bin/env bash
# numasim plot: with gnuplot, two run results and an ab result become SVG,
# PDF, ASCII art (a .txt file, or stdout with -o -) and PNG where gnuplot has
# a png terminal, and --kind nodes the per-node counters in each; the
# seed's ab plot draws the published ranges with their source; the run
# plot has the gather-duration and the
# migration-to-flush delay histograms and starts
# after the first second; without gnuplot (always tested,
# by hiding it from PATH) a clear message, exit status 3 and no file; bad
# input exits 2 and writes nothing.
set -euo pipefail
: "${NUMASIM:?NUMASIM must name the numasim binary}"
work=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
fail() { echo "FAIL: $*" >&2; exit 1; }

"$NUMASIM" run small --duration 5 --json "$work/a.json" >/dev/null 2>&1 || fail "run a failed"
"$NUMASIM" run small --duration 5 --kernel v7.3+single-folio-v2 --json "$work/b.json" >/dev/null 2>&1 ||
    fail "run b failed"
"$NUMASIM" ab small --kernels v7.3,v7.3+single-folio-v2 --pairs 2 --duration 5 \
    --json "$work/ab.json" >/dev/null 2>&1 || fail "ab failed"
# the seed's ab carries the published ranges of its kernels, by the run's
# spelling of them; other scenarios none
"$NUMASIM" ab seed --kernels v7.3,v7.3+single-folio-v2 --pairs 2 --duration 3 \
    --json "$work/seedab.json" >/dev/null 2>&1 || fail "ab seed failed"
jq -e '.published.kernels["v7.3"].tlb_irqs_per_migrated_page == [202, 210] and
       .published.kernels["v7.3+single-folio-v2"].throughput_loss == [0.005, 0.063] and
       (.published.source | test("nothing to batch"))' "$work/seedab.json" >/dev/null ||
    fail "ab seed: no published block: $(jq -c .published "$work/seedab.json")"
jq -e 'has("published") | not' "$work/ab.json" >/dev/null || fail "ab small has a published block"

no_temp_left() {
    if compgen -G "$work/.numasim-plot.*" >/dev/null; then
        fail "a temporary file was left behind: $(ls -a "$work")"
    fi
}

# ---- gnuplot missing: message, exit 3, no file ----------------------------------------
missing_msg='gnuplot not found: install gnuplot-nox (scripts/deps.sh --optional)'
rc=0
env PATH="$work/no-such-dir" "$NUMASIM" plot "$work/a.json" -o "$work/none.svg" 2>"$work/err" || rc=$?
[ "$rc" = 3 ] || fail "without gnuplot: exit status $rc, expected 3"
grep -qF "$missing_msg" "$work/err" || fail "without gnuplot: unclear message: $(cat "$work/err")"
[ ! -e "$work/none.svg" ] || fail "without gnuplot: an output file was written"
no_temp_left

if command -v gnuplot >/dev/null 2>&1; then
    # ---- run results -> SVG ----------------------------------------------------------
    "$NUMASIM" plot "$work/a.json" "$work/b.json" -o "$work/runs.svg" --title "two runs" ||
        fail "plot of two runs failed"
    [ -s "$work/runs.svg" ] || fail "runs.svg is empty"
    grep -q '<svg' "$work/runs.svg" || fail "runs.svg is not SVG"
    grep -q 'v7.3+single-folio-v2, seed 1' "$work/runs.svg" || fail "runs.svg lacks the legend"
    grep -q 'two runs' "$work/runs.svg" || fail "runs.svg lacks the --title"
    grep -q 'mmu_gather durations' "$work/runs.svg" || fail "runs.svg lacks the gather histogram"
    grep -q 'batched unmap to the end of its flush' "$work/runs.svg" || fail "runs.svg lacks the delay histogram"

    # ---- PDF and ASCII art -----------------------------------------------------------
    if gnuplot -e 'set terminal' 2>&1 | grep -Eq '^ *pdfcairo '; then
        "$NUMASIM" plot "$work/a.json" "$work/b.json" -o "$work/runs.pdf" || fail "PDF plot failed"
        [ "$(head -c 5 "$work/runs.pdf")" = "%PDF-" ] || fail "runs.pdf is not a PDF"
        "$NUMASIM" plot "$work/ab.json" -o "$work/ab.pdf" || fail "PDF plot of an ab result failed"
        [ "$(head -c 5 "$work/ab.pdf")" = "%PDF-" ] || fail "ab.pdf is not a PDF"
    fi
    "$NUMASIM" plot "$work/a.json" "$work/b.json" -o "$work/runs.txt" || fail "text plot failed"
    grep -q 'TLB shootdown interrupts per second' "$work/runs.txt" || fail "runs.txt lacks a panel"
    grep -q 'mmu_gather durations' "$work/runs.txt" || fail "runs.txt lacks the gather histogram"
    grep -q 'batched unmap to the end of its flush' "$work/runs.txt" || fail "runs.txt lacks the delay histogram"
    # v7.3 batches some unmaps in 5 s of small: the delay panel has an outline
    # and tics with units, not the "no batched unmaps" note
    grep -q 'no batched unmaps' "$work/runs.txt" && fail "runs.txt: the delay histogram is empty"
    grep -Eq 'delay \((ns|us|ms|s), log2 bucket lower bound\)' "$work/runs.txt" ||
        fail "runs.txt: the delay histogram's axis has no unit"
    tr -d '\f' <"$work/runs.txt" | LC_ALL=C grep -q '[^ -~]' && fail "runs.txt is not plain ASCII (gnuplot's form feed aside)"
    # the time axis starts at 1 s (the first second is left out), not at 0
    grep -Eq '^ +1 +(1\.5 +)?2 ' "$work/runs.txt" || fail "runs.txt: the time axis does not start at 1 s"
    "$NUMASIM" plot "$work/ab.json" -o - >"$work/ab.out" || fail "plot -o - failed"
    grep -q 'kernel cycles per hinting PTE' "$work/ab.out" || fail "plot -o - printed no ab panel"
    grep -q '\*\*\*' "$work/ab.out" || fail "plot -o - drew no bars"
    tr -d '\f' <"$work/ab.out" | LC_ALL=C grep -q '[^ -~]' && fail "plot -o - printed more than plain ASCII"
    # a title with a terminal escape reaches the terminal as '?', not ESC
    "$NUMASIM" plot "$work/a.json" -o - --title $'\e]2;pwned\a\e[31mred' >"$work/esc.out" ||
        fail "plot -o - with an odd title failed"
    grep -q $'\e' "$work/esc.out" && fail "an escape in --title reached the terminal"
    grep -q '?]2;pwned??\[31mred' "$work/esc.out" || fail "the title was not shown with '?' for controls"

    # ---- quotes in titles, names and paths (issue 28): gnuplot 5.4 reads one
    # doubled quote per single-quoted string; a backquote in a double-quoted
    # one runs a shell command.  The plot is made, under the name asked for,
    # with the text as given, and nothing else appears.
    q="$work/quotes"
    mkdir "$q"
    cp "$work/a.json" "$q/r''1.json"
    cp "$work/a.json" "$q/r''2.json"   # same kernel and seed: the legends are the file stems
    title=$'t \' \'\' " \\ ` `touch PWNED` @x $y %s'
    qout="o''u\"t\\p\`é.svg"
    (cd "$q" && "$NUMASIM" plot "r''1.json" "r''2.json" -o "$qout" --title "$title") ||
        fail "plot with quotes in the title, names and output path failed"
    [ -s "$q/$qout" ] && [ "$(ls -A "$q" | wc -l)" = 3 ] || fail "quotes: stray or missing files: $(ls -A "$q")"
    grep -qF "t ' '' " "$q/$qout" && grep -qF ' \ ` `touch PWNED` @x $y %s' "$q/$qout" ||
        fail "quotes: the title is not drawn as given"
    grep -qF "r''1" "$q/$qout" && grep -qF "r''2" "$q/$qout" || fail "quotes: the legends are not the file stems"
    jq '.scenario.name = "s'"''"'c\"d\\\\e`touch PWNED`"' "$work/ab.json" >"$q/ab.json"
    (cd "$q" && "$NUMASIM" plot ab.json -o "ab''.svg") || fail "plot of an ab result with quotes in its scenario failed"
    grep -qF "s''c" "$q/ab''.svg" || fail "quotes: the ab title lacks the scenario name"
    [ ! -e "$q/PWNED" ] && [ ! -e PWNED ] || fail "quotes: a backquoted command ran"
    rm -rf "$q"

    # ---- per-node counters (--kind nodes) in each format -------------------------------
    "$NUMASIM" plot --kind nodes "$work/a.json" "$work/b.json" -o "$work/nodes.svg" || fail "nodes SVG failed"
    grep -q '<svg' "$work/nodes.svg" && grep -q 'numa_interleave' "$work/nodes.svg" &&
        grep -q 'node 1' "$work/nodes.svg" || fail "nodes.svg lacks a panel or the node tics"
    "$NUMASIM" plot --kind nodes "$work/a.json" -o - >"$work/nodes.out" || fail "nodes ASCII failed"
    grep -q 'numa_hit' "$work/nodes.out" && grep -q '\*\*\*' "$work/nodes.out" ||
        fail "nodes ASCII: no numa_hit panel or no bars"
    tr -d '\f' <"$work/nodes.out" | LC_ALL=C grep -q '[^ -~]' && fail "nodes ASCII is not plain ASCII"
    if gnuplot -e 'set terminal' 2>&1 | grep -Eq '^ *pdfcairo '; then
        "$NUMASIM" plot --kind nodes "$work/a.json" -o "$work/nodes.pdf" || fail "nodes PDF failed"
        [ "$(head -c 5 "$work/nodes.pdf")" = "%PDF-" ] || fail "nodes.pdf is not a PDF"
    fi
    if gnuplot -e 'set terminal' 2>&1 | grep -Eq '^ *(pngcairo|png) '; then
        "$NUMASIM" plot --kind nodes "$work/a.json" -o "$work/nodes.png" || fail "nodes PNG failed"
        [ "$(head -c 8 "$work/nodes.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
            fail "nodes.png is not a PNG"
    fi

    # ---- per-process convergence (--kind convergence) ------------------------------------
    "$NUMASIM" plot --kind convergence "$work/a.json" "$work/b.json" -o "$work/conv.svg" ||
        fail "convergence SVG failed"
    grep -q '<svg' "$work/conv.svg" && grep -q 'the criterion' "$work/conv.svg" ||
        fail "conv.svg lacks the criterion's line"
    "$NUMASIM" plot --kind convergence "$work/a.json" -o - >"$work/conv.out" || fail "convergence ASCII failed"
    grep -q 'converged' "$work/conv.out" || fail "convergence ASCII: no legend saying when it converged"

    # ---- ab result -> SVG ------------------------------------------------------------
    "$NUMASIM" plot "$work/ab.json" -o "$work/ab.svg" || fail "plot of an ab result failed"
    [ -s "$work/ab.svg" ] || fail "ab.svg is empty"
    grep -q '<svg' "$work/ab.svg" || fail "ab.svg is not SVG"
    grep -q 'TLB interrupts per migrated page' "$work/ab.svg" || fail "ab.svg lacks a panel"
    grep -q 'published' "$work/ab.svg" && fail "ab.svg of small shows published values"
    # the seed's: published ranges beside the bars, their source named, and
    # the pairs' spread still drawn
    "$NUMASIM" plot "$work/seedab.json" -o "$work/seedab.svg" || fail "plot of the seed's ab failed"
    grep -q 'published (diamond, min-max), from the linux-mm patch series' "$work/seedab.svg" ||
        fail "seedab.svg does not name the published source"
    "$NUMASIM" plot "$work/seedab.json" -o - >"$work/seedab.out" || fail "ASCII plot of the seed's ab failed"
    [ "$(grep -o published "$work/seedab.out" | wc -l)" -ge 4 ] ||
        fail "seedab ASCII: not a published key per panel and the source"

    # ---- paper sizes (issue 31, 3): page widths, text in points, kept scripts --------
    if gnuplot -e 'set terminal' 2>&1 | grep -Eq '^ *pdfcairo ' && command -v pdfinfo >/dev/null &&
        command -v pdftotext >/dev/null; then
        page_width() { pdfinfo "$1" | awk '/^Page size:/ { print $3 }'; }
        "$NUMASIM" plot "$work/a.json" "$work/b.json" --width column -o "$work/col.pdf" ||
            fail "--width column failed"
        [ "$(page_width "$work/col.pdf")" = 252 ] || fail "--width column: $(page_width "$work/col.pdf") pt wide, not 252"
        "$NUMASIM" plot "$work/a.json" "$work/b.json" -o "$work/page.pdf" || fail "default width failed"
        [ "$(page_width "$work/page.pdf")" = 504 ] || fail "run plot: $(page_width "$work/page.pdf") pt wide, not 504"
        h=$(pdfinfo "$work/col.pdf" | awk '/^Page size:/ { print $5 }')
        awk -v h="$h" 'BEGIN { exit !(h <= 700) }' || fail "--width column: a page $h pt high"
        # DejaVu Sans' ascent plus descent is 1.164 em: 8 pt text makes 9.3 pt
        # high word boxes, 9 pt 10.5; nearly every word must be one of them
        pdftotext -bbox "$work/page.pdf" - | sed -n 's/.*yMin="\([0-9.]*\)".*yMax="\([0-9.]*\)".*/\1 \2/p' |
            awk '{ h = $2 - $1; n++; if (h >= 9.0 && h <= 10.8) ok++ }
                 END { if (n < 20 || ok < 0.9 * n) { print n, ok; exit 1 } }' ||
            fail "the run plot's text is not 8-9 pt"
        # the kept script draws the same figure by itself
        "$NUMASIM" plot "$work/ab.json" -o "$work/k.pdf" --keep-script "$work/k.gp" || fail "--keep-script failed"
        grep -q "fontscale 0.75" "$work/k.gp" && grep -q '^\$ab << EOD' "$work/k.gp" ||
            fail "the kept script lacks the font scale or its data"
        rm "$work/k.pdf"
        (cd "$work" && gnuplot k.gp) || fail "gnuplot k.gp failed"
        [ "$(head -c 5 "$work/k.pdf")" = "%PDF-" ] || fail "the kept script did not draw a PDF"
        [ "$(page_width "$work/k.pdf")" = 504 ] || fail "the kept script's PDF is not 504 pt wide"
    else
        echo "plot.sh: no pdfcairo or poppler-utils: page and font sizes not checked" >&2
    fi
    "$NUMASIM" plot "$work/ab.json" -o "$work/k.svg" --keep-script "$work/ks.gp" || fail "SVG --keep-script failed"
    mv "$work/k.svg" "$work/k0.svg"
    (cd "$work" && gnuplot ks.gp) && cmp -s "$work/k.svg" "$work/k0.svg" ||
        fail "the kept script's SVG differs from numasim's"
    # --kind nodes: a counter that is zero everywhere has no panel; it is named in the title
    "$NUMASIM" plot --kind nodes "$work/a.json" -o "$work/n.svg" --keep-script "$work/n.gp" ||
        fail "nodes --keep-script failed"
    grep -q '^set title "numa_hit"' "$work/n.gp" || fail "nodes: no numa_hit panel"
    zeros=0
    for k in numa_miss numa_foreign numa_other; do
        [ "$(jq "[.node_vmstat[].$k] | add" "$work/a.json")" = 0 ] || continue
        zeros=$((zeros + 1))
        grep -q "^set title \"$k\"" "$work/n.gp" && fail "nodes: the all-zero $k has a panel"
        grep -q "all zero, not drawn:.*$k" "$work/n.gp" || fail "nodes: the title does not name the all-zero $k"
    done
    [ "$zeros" -gt 0 ] || fail "nodes: small has no all-zero counter any more: pick another"
    # ab headline: elapsed time for fixed work, throughput loss for timed runs; the
    # title says how long the runs were
    "$NUMASIM" ab small --kernels v7.3,v7.3+single-folio-v2 --pairs 1 --duration 20 \
        --set workload.work_mops=20 --json "$work/fw.json" >/dev/null 2>&1 || fail "fixed-work ab failed"
    "$NUMASIM" plot "$work/fw.json" -o "$work/fw.svg" --keep-script "$work/fw.gp" || fail "fixed-work plot failed"
    [ "$(grep -m1 '^set title' "$work/fw.gp")" = 'set title "elapsed time (fixed work)"' ] ||
        fail "fixed work: the first panel is not the elapsed time: $(grep -m1 '^set title' "$work/fw.gp")"
    grep -q 'runs of 20 s' "$work/fw.gp" && fail "fixed work: the title gives the limit, not the runs"
    grep -Eq 'runs of [0-9.]+(-[0-9.]+)? s \(fixed work\)' "$work/fw.gp" || fail "fixed work: no run length in the title"
    "$NUMASIM" plot "$work/ab.json" -o "$work/t.svg" --keep-script "$work/t.gp" || fail "timed ab plot failed"
    [ "$(grep -m1 '^set title' "$work/t.gp")" = 'set title "throughput loss from balancing"' ] ||
        fail "timed: the first panel is not the throughput loss"
    grep -q 'runs of 5 s' "$work/t.gp" || fail "timed: the title lacks the runs' length"

    # ---- a sweep's directory against a grid key ------------------------------------------
    printf '%s\n' '[sweep]' 'scenario = small' 'kernels = v7.3, v7.3+single-folio-v2' 'seeds = 1..2' \
        '[set]' 'run.duration_s = 1.5' '[grid]' 'numa_balancing.scan_size_mb = 64, 256' >"$work/s.ini"
    "$NUMASIM" sweep "$work/s.ini" -q --jobs 2 || fail "the sweep failed"
    "$NUMASIM" plot "$work/s.sweep" -o "$work/sw.svg" --keep-script "$work/sw.gp" --figure tlb-irqs/s ||
        fail "plot of a sweep failed"
    grep -q '<svg' "$work/sw.svg" || fail "sw.svg is not SVG"
    [ "$(grep -c 'with yerrorlines' "$work/sw.gp")" = 2 ] || fail "sweep: not one line per kernel"
    grep -q 'title "v7.3+single-folio-v2"' "$work/sw.gp" || fail "sweep: a line is not named by its kernel"
    grep -q 'set xtics ("64" 64, "256" 256)' "$work/sw.gp" || fail "sweep: the x tics are not the grid's values"
    grep -q 'set xlabel "numa_balancing.scan_size_mb"' "$work/sw.gp" || fail "sweep: the x axis is not the key"
    grep -q 'mean of 2 seeds, error bars min-max' "$work/sw.gp" || fail "sweep: the title does not say what the bars are"
    grep -Eq '[0-9a-f]{16}' "$work/sw.gp" && fail "sweep: a point id reached the figure"
    rc=0
    "$NUMASIM" plot "$work/s.sweep" -o "$work/x.svg" --x workload.threads 2>"$work/err" || rc=$?
    [ "$rc" = 2 ] && grep -q 'not a \[grid\] key' "$work/err" && [ ! -e "$work/x.svg" ] ||
        fail "sweep --x of a key not in the grid: exit $rc, $(cat "$work/err")"

    # ---- PNG, where this gnuplot can write one ----------------------------------------
    if gnuplot -e 'set terminal' 2>&1 | grep -Eq '^ *(pngcairo|png) '; then
        "$NUMASIM" plot "$work/a.json" "$work/b.json" -o "$work/runs.png" || fail "PNG plot failed"
        [ "$(head -c 8 "$work/runs.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
            fail "runs.png is not a PNG"
    fi
    no_temp_left
else
    rc=0
    "$NUMASIM" plot "$work/a.json" -o "$work/none.svg" 2>"$work/err" || rc=$?
    [ "$rc" = 3 ] || fail "gnuplot absent: exit status $rc, expected 3"
    grep -qF "$missing_msg" "$work/err" || fail "gnuplot absent: unclear message: $(cat "$work/err")"
    [ ! -e "$work/none.svg" ] || fail "gnuplot absent: an output file was written"
fi

# ---- bad input: exit 2, no output, an existing file left alone ----------------------------
echo '{"hello": "world"}' >"$work/other.json"
bad() {
    local what=$1 out=$2; shift 2
    local rc=0
    "$NUMASIM" plot "$@" 2>"$work/err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit status $rc, expected 2"
    [ -s "$work/err" ] || fail "$what: no message"
    [ ! -e "$out" ] || fail "$what: wrote $out"
}
bad "missing file" "$work/x.svg" "$work/missing.json" -o "$work/x.svg"
bad "not a numasim result" "$work/x.svg" "$work/other.json" -o "$work/x.svg"
bad "unknown extension" "$work/x.eps" "$work/a.json" -o "$work/x.eps"
bad "run and ab mixed" "$work/x.svg" "$work/a.json" "$work/ab.json" -o "$work/x.svg"
grep -q 'cannot mix' "$work/err" || fail "unclear message: $(cat "$work/err")"
bad "no -o" "$work/x.svg" "$work/a.json"
bad "unknown --kind" "$work/x.svg" "$work/a.json" --kind bogus -o "$work/x.svg"
bad "--kind nodes of an ab result" "$work/x.svg" "$work/ab.json" --kind nodes -o "$work/x.svg"
grep -q 'not ab results' "$work/err" || fail "unclear message: $(cat "$work/err")"
bad "no input" "$work/x.svg" -o "$work/x.svg"
bad "unknown --width" "$work/x.svg" "$work/a.json" --width huge -o "$work/x.svg"
bad "--figure of result files" "$work/x.svg" "$work/a.json" --figure throughput -o "$work/x.svg"
bad "--keep-script on the figure" "$work/x.svg" "$work/a.json" -o "$work/x.svg" --keep-script "$work/x.svg"

echo old >"$work/keep.svg"
rc=0
"$NUMASIM" plot "$work/missing.json" -o "$work/keep.svg" 2>/dev/null || rc=$?
[ "$rc" = 2 ] && [ "$(cat "$work/keep.svg")" = old ] || fail "bad input touched an existing output"
no_temp_left
echo ok
