/* SPDX-License-Identifier: BSD-2-Clause */
#include <string.h>

#include "datapath/port.h"

static const struct port_ops *const port_drivers[] = {
    &port_afpacket_ops,
    &port_afxdp_ops,
    &port_cellpw_ops,
    &port_atmsock_ops,
};

const struct port_ops *port_ops_find(const char *driver)
{
	for (size_t i = 0; i < sizeof(port_drivers) / sizeof(port_drivers[0]); i++)
		if (strcmp(port_drivers[i]->driver, driver) == 0)
			return port_drivers[i];
	return NULL;
}
