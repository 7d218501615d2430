# Helpers the benchmark scripts share; sourced, not run.

# The median of the numbers on standard input, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Replaces the section of markdown file OUT whose heading starts with "## TITLE (" by the file
# SECTION (or appends SECTION if OUT has no such section), keeping every other section.
# Usage: replace_section TITLE SECTION OUT
replace_section() {
  local title=$1 section=$2 out=$3
  if [ -f "$out" ] && grep -qF "## $title (" "$out"; then
    awk -v section="$section" -v heading="## $title (" '
      index($0, heading) == 1 { while ((getline line < section) > 0) print line; print ""; skip = 1; next }
      /^## / { skip = 0 }
      !skip { print }' "$out" > "$out.tmp"
  else
    { [ -f "$out" ] && cat "$out" && echo; cat "$section"; } > "$out.tmp"
  fi
  mv "$out.tmp" "$out"
}
