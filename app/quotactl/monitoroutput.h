#pragma once
// How quotactl monitor prints a refresh and a discover report: a table for people, JSON lines
// for scripts (the field names are documented in docs/monitoring.md and are an interface).
#include "model/monitor/keyspacesurvey.h"
#include "model/monitor/quotamonitor.h"

#include <QString>

namespace qs::cli {

QString snapshotJson(const MonitorSnapshot &snapshot); // one line, newline-terminated
QString snapshotText(const MonitorSnapshot &snapshot, bool clearScreen);
QString surveyJson(const SurveyReport &report);
QString surveyText(const SurveyReport &report);

// A key as text: printable ASCII as is, any other byte as \xHH (keys are binary-safe).
QString printableKey(const QByteArray &key);

} // namespace qs::cli
