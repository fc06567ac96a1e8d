#ifndef CSD_UTIL_ERRMAP_H
#define CSD_UTIL_ERRMAP_H
/* Map a negative errno from a component to the protocol's Status. */
int csd_status_from_errno(int rc);
#endif
