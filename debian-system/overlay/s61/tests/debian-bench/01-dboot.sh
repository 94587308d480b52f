#!/bin/bash
# dboot: how long this boot took, as systemd-analyze time reports it: the
# kernel (until systemd started; with Debian's initramfs-tools the initrd's
# time is in it, systemd knows no separate initrd phase), userspace (until
# the boot's last job, multi-user.target with this image) and the total.
# One sample each per boot: kernel_ms, userspace_ms, total_ms. Fails when
# the boot has not finished within 300 s (systemd-analyze then has no
# time), when its line cannot be read, or when its parts do not add up to
# its total (within the rounding of its printed figures).
. /s61/lib.sh
. /s61/dbench.sh

state=$(timeout 300 systemctl is-system-running --wait)
echo "systemctl is-system-running: $state"
line=$(systemd-analyze time 2>&1 | head -n 1)
echo "systemd-analyze time: $line"
case $line in "Startup finished in "*) ;; *) fail "systemd-analyze time has no 'Startup finished' line (the boot is not finished?)" ;; esac

# span_ms TEXT: systemd's time span ("1min 2.345s", "812ms", "11.802s",
# "1h 2min 3s", "950us") in ms with three decimals; returns 1 on anything
# else.
span_ms() {
	awk '{
		t = 0
		for (i = 1; i <= NF; i++) {
			v = $i
			if (v ~ /^[0-9.]+ms$/) { sub(/ms$/, "", v); t += v }
			else if (v ~ /^[0-9.]+us$/) { sub(/us$/, "", v); t += v / 1000 }
			else if (v ~ /^[0-9.]+min$/) { sub(/min$/, "", v); t += v * 60000 }
			else if (v ~ /^[0-9.]+h$/) { sub(/h$/, "", v); t += v * 3600000 }
			else if (v ~ /^[0-9.]+s$/) { sub(/s$/, "", v); t += v * 1000 }
			else exit 1
		}
		if (NF == 0) exit 1
		printf "%.3f\n", t
	}' <<<"$1"
}

body=${line#Startup finished in }
total_txt=${body##* = }
parts=${body% = *}
kernel='' userspace='' initrd='' other=''
while [ -n "$parts" ]; do
	p=${parts%% + *}
	[ "$p" = "$parts" ] && parts='' || parts=${parts#* + }
	label=${p##*(}
	label=${label%)}
	v=$(span_ms "${p% (*}") || fail "cannot read the time '${p% (*}' of $label in: $line"
	case $label in
	kernel) kernel=$v ;;
	userspace) userspace=$v ;;
	initrd) initrd=$v ;;
	*) other="$other $label=$v" ;;
	esac
done
total=$(span_ms "$total_txt") || fail "cannot read the total '$total_txt' in: $line"
[ -n "$kernel" ] || fail "no kernel time in: $line"
[ -n "$userspace" ] || fail "no userspace time in: $line"
[ -z "$initrd" ] || echo "an initrd phase of $initrd ms (not a sample)"
[ -z "$other" ] || echo "other phases:$other (not samples)"
# The printed figures are rounded to the ms (a few ms for the sum of up to
# five of them); more than 5 ms apart means the line was misread.
diff=$(awk -v k="$kernel" -v u="$userspace" -v i="${initrd:-0}" -v t="$total" -v o="$other" 'BEGIN {
	n = split(o, a, " "); s = k + u + i
	for (j = 1; j <= n; j++) { sub(/^[^=]*=/, "", a[j]); s += a[j] }
	d = t - s; if (d < 0) d = -d; printf "%.3f\n", d }')
echo "kernel $kernel ms + userspace $userspace ms${initrd:+ + initrd $initrd ms} = total $total ms (sum off by $diff ms)"
awk -v d="$diff" 'BEGIN { exit !(d <= 5) }' || fail "the parts of '$line' do not add up to its total ($diff ms apart)"
sample dboot kernel_ms "$kernel"
sample dboot userspace_ms "$userspace"
sample dboot total_ms "$total"
pass
