# Helpers shared by the benchmark scripts (sourced; not a benchmark itself).

# best_of CMD...: runs the command $reps times; prints "best_ms peak_kb".
# Its output goes to $work/out and $work/err, its peak RSS to $work/rss.
best_of() {
	best="" peak=0
	i=0
	while [ $i -lt "$reps" ]; do
		s=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$work/rss" "$@" > "$work/out" 2> "$work/err"
		e=$(date +%s%N)
		ms=$(( (e - s) / 1000000 ))
		kb=$(tail -n 1 "$work/rss")
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
		[ "$kb" -gt "$peak" ] && peak=$kb
		i=$((i + 1))
	done
	echo "$best $peak"
}
