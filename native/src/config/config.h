/* Parameters inside the library: the value checks this base layer can make on its own. */
#ifndef CSD_CONFIG_CONFIG_H
#define CSD_CONFIG_CONFIG_H

#include <stddef.h>
#include "smartssd/params.h"

/* Ranges and consistency of the values (not policy names). 0 or -EINVAL with err naming the field. */
int csd_config_check_values(const csd_params *p, char *err, size_t errlen);

/* 1 when the parameter key is fixed at format (the image's value holds in every session: the
 * geometry, the object table, the layers whose state is on the image), 0 when a session may change
 * it, -ENOENT for an unknown key. The parameter table carries the flag (params.c). */
int csd_params_fixed(const char *key);
/* Give p the image's value of every parameter fixed at format. */
void csd_params_keep_fixed(csd_params *p, const csd_params *image);

#endif
