# SPDX-License-Identifier: BSD-2-Clause
# bash completion for cellgatectl(8). Port and subinterface names come from
# the running daemon (cellgatectl show interfaces), so they are always current.

_cellgatectl_ports()
{
	cellgatectl "${sock[@]}" show interfaces 2>/dev/null | awk 'NR > 1 { print $1 }'
}

_cellgatectl()
{
	local cur prev words cword
	_init_completion || return
	local -a sock=()
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -s || ${words[i]} == --socket ]]; then
			sock=(-s "${words[i + 1]}")
		fi
	done
	case $prev in
	-s | --socket)
		_filedir
		return
		;;
	-y | --yang-dir)
		_filedir -d
		return
		;;
	esac
	# The command words after the options.
	local -a cmd=()
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-s | --socket | -y | --yang-dir) ((i++)) ;;
		-*) ;;
		*) cmd+=("${words[i]}") ;;
		esac
	done
	case "${cmd[*]}" in
	"")
		COMPREPLY=($(compgen -W "show route vc address clear -j --json -s --socket -y --yang-dir --help" -- "$cur"))
		;;
	show)
		COMPREPLY=($(compgen -W "ports interfaces vc routes neighbors fpm counters ipv6" -- "$cur"))
		;;
	"show ipv6")
		COMPREPLY=($(compgen -W "routes neighbors" -- "$cur"))
		;;
	"show vc" | "vc ping" | "vc add" | "vc del" | "clear counters" | "address add" | "address del")
		COMPREPLY=($(compgen -W "$(_cellgatectl_ports)" -- "$cur"))
		;;
	"vc add "* | "vc del "*)
		[[ ${#cmd[@]} -eq 2 ]] && COMPREPLY=($(compgen -W "$(_cellgatectl_ports)" -- "$cur"))
		[[ ${#cmd[@]} -ge 4 ]] && COMPREPLY=($(compgen -W "llc-snap vc-mux-ipv4 vc-mux-ipv6 peer ipv6-peer" -- "$cur"))
		;;
	route)
		COMPREPLY=($(compgen -W "add del" -- "$cur"))
		;;
	"route add "?*)
		if [[ ${#cmd[@]} -eq 3 ]]; then
			COMPREPLY=($(compgen -W "via dev blackhole unreachable" -- "$cur"))
		elif [[ ${cmd[3]} == dev && ${#cmd[@]} -eq 4 ]]; then
			COMPREPLY=($(compgen -W "$(_cellgatectl_ports)" -- "$cur"))
		fi
		;;
	"route del")
		COMPREPLY=($(compgen -W "$(cellgatectl "${sock[@]}" show routes 2>/dev/null |
			awk '$2 == "static" { print $1 }')" -- "$cur"))
		;;
	vc)
		COMPREPLY=($(compgen -W "add del ping" -- "$cur"))
		;;
	address)
		COMPREPLY=($(compgen -W "add del" -- "$cur"))
		;;
	clear)
		COMPREPLY=($(compgen -W "counters" -- "$cur"))
		;;
	esac
} && complete -F _cellgatectl cellgatectl
