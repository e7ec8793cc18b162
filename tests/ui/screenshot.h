#pragma once
#include <QString>

class QWidget;

namespace qs::test {

// Grabs the widget into QS_SCREENSHOT_DIR/<name>.png and returns the file's path (empty on
// failure). For review by a person, never compared pixel by pixel.
QString saveScreenshot(QWidget *widget, const QString &name);

} // namespace qs::test
