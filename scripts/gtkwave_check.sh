#!/usr/bin/env bash
# Opens a GTKWave view with its VCD in real GTKWave on a virtual X display
# (Xvfb) and fails when a signal the view names is not displayed (GTKWave
# skips missing signals silently). With a third argument it also saves a
# screenshot of the opened view.
# usage: scripts/gtkwave_check.sh VCD VIEW.gtkw [SCREENSHOT.png]
# Run from the repository root (the views name their filters relative to it).
set -euo pipefail
vcd=$1
view=$2
shot=${3:-}
for tool in gtkwave xvfb-run; do
  command -v "$tool" > /dev/null || { echo "gtkwave_check: $tool not found (scripts/setup.sh installs it)"; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The view with its dump file replaced by the VCD under test.
sed "s|^\[dumpfile\].*|[dumpfile] \"$vcd\"|" "$view" > "$work/view.gtkw"
cat > "$work/list.tcl" <<'TCL'
foreach s [gtkwave::getDisplayedSignals] { puts "displayed: $s" }
gtkwave::/File/Quit
TCL
xvfb-run -a -s "-screen 0 1400x900x24" timeout 120 gtkwave -S "$work/list.tcl" "$vcd" "$work/view.gtkw" \
  > "$work/gtkwave.log" 2>&1 || { cat "$work/gtkwave.log"; echo "gtkwave_check: gtkwave failed"; exit 1; }
# Names as GTKWave lists them: full path with the bit range.
grep '^displayed: ' "$work/gtkwave.log" | sed 's/^displayed: //' | sort -u > "$work/displayed"
grep -E '^(\+\{[^}]*\} )?SystemC\.' "$view" | sed -E 's/^\+\{[^}]*\} //' | sort -u > "$work/wanted"
missing=$(comm -23 "$work/wanted" "$work/displayed" | sed -E 's/\[[0-9]+:[0-9]+\]$//' | sort -u |
  comm -23 - <(sed -E 's/\[[0-9]+:[0-9]+\]$//' "$work/displayed" | sort -u) || true)
if grep -qi 'warning\|error' "$work/gtkwave.log"; then
  grep -i 'warning\|error' "$work/gtkwave.log"
  echo "gtkwave_check: $view: GTKWave reported the above"
  exit 1
fi
if [ -n "$missing" ]; then
  echo "$missing" | sed 's/^/missing: /'
  echo "gtkwave_check: $view: $(echo "$missing" | wc -l) of $(wc -l < "$work/wanted") signals not displayed"
  exit 1
fi
echo "gtkwave_check: $view: all $(wc -l < "$work/wanted") signals displayed"
if [ -n "$shot" ]; then
  xvfb-run -a -s "-screen 0 1400x900x24" bash -c \
    "gtkwave '$vcd' '$work/view.gtkw' > /dev/null 2>&1 & pid=\$!; sleep 6; import -window root '$shot'; kill \$pid" \
    || { echo "gtkwave_check: screenshot failed"; exit 1; }
  echo "gtkwave_check: screenshot $shot"
fi
