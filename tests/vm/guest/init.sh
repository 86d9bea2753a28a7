#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# /init of the ATM VM lab's guest (busybox sh): mounts, modules, the atmtcp
# pair (itf 0 listens, itf 1 connects over loopback), the 9p share, then
# /scenario.sh under a timeout; "VMDONE rc=N" on the console, power off.
export PATH=/bin
. /etc/vm.conf
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/net && mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
# atmtcp's bind() sleeps uninterruptibly on a broken module: say so, do not panic.
echo 0 >/proc/sys/kernel/hung_task_timeout_secs
while read -r m; do
	insmod "/lib/modules/$m.ko" || echo "VMTEST: FAIL insmod-$m: insmod failed"
done </lib/modules/order
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 share /share 2>/dev/null; then
	echo "VMFACT: share=9p"
else
	echo "VMFACT: share=none"
fi
ip link set lo up
echo "VMFACT: kernel=$(cat /proc/sys/kernel/osrelease)"
atmtcp virtual 0 listen-bg >/tmp/atmtcp0.log 2>&1
atmtcp virtual 1 connect 127.0.0.1 bg >/tmp/atmtcp1.log 2>&1
i=0
while [ "$(grep -c atmtcp /proc/net/atm/devices 2>/dev/null)" -lt 2 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ "$(grep -c atmtcp /proc/net/atm/devices)" -eq 2 ] || echo "VMTEST: FAIL atmtcp-pair: not up"
echo "VMFACT: boot_s=$(cut -d' ' -f1 /proc/uptime)"
cd /tmp
timeout "$VM_TIMEOUT" sh /scenario.sh </dev/null
rc=$?
[ $rc -eq 143 ] && echo "VMTEST: FAIL scenario-timeout: still running after ${VM_TIMEOUT}s"
echo "VMFACT: end_s=$(cut -d' ' -f1 /proc/uptime)"
sync
umount /share 2>/dev/null
echo "VMDONE rc=$rc"
poweroff -f
