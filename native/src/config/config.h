/* Parameters inside the library: the value checks this base layer can make on its own. */
#ifndef CSD_CONFIG_CONFIG_H
#define CSD_CONFIG_CONFIG_H

#include <stddef.h>
#include "smartssd/params.h"

/* Ranges and consistency of the values (not policy names). 0 or -EINVAL with err naming the field. */
int csd_config_check_values(const csd_params *p, char *err, size_t errlen);

#endif
