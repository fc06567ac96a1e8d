/* The issue models (issue.h), in one list: the parameter issue_model names one. */
#include "engine/issue.h"
#include "util/registry.h"

static const csd_issue_model *const models[] = { &csd_issue_batch, &csd_issue_stage };

CSD_REGISTRY(csd_issue, csd_issue_model, models)
