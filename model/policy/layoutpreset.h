#pragma once
// The Redis layouts of rate limiters Quota Studio did not write, by name: what the policy's
// `redis.layouts[].preset` may say, which key a preset reads by default and which algorithm the
// route's limit must use for its keys to make sense. The decoders live in model/monitor/; this
// table is the one place both the validator and the monitor read (docs/monitoring.md).
#include "limiter/algorithms/algorithm.h"

#include <QList>
#include <QString>

namespace qs {

struct LayoutPreset {
    QString name; // as written in the policy: "python-limits"
    QString defaultKey; // key template used when the layout gives none; empty: `key` required
    QList<limiter::Algorithm> algorithms; // the route's limit must use one of these
    bool limitInKey = false; // the key names the limit (python-limits): the route's is not used
    QString summary; // one line: whose keys, which algorithm
};

// The default preset: a layout without `preset:` is a tutorial hash (the format's first reading).
inline constexpr char kDefaultLayoutPreset[] = "tutorial-hash";

const QList<LayoutPreset> &layoutPresets();
const LayoutPreset *layoutPreset(const QString &name); // nullptr when unknown
QStringList layoutPresetNames();

} // namespace qs
