#pragma once
#include <QString>

class QWidget;

namespace qs::test {

// Grabs the widget into QS_SCREENSHOT_DIR/<name>.png and returns the file's path; empty when
// the grab does not have the widget's size or is blank (fewer than 16 colours), or cannot be
// written. For review by a person, never compared pixel by pixel.
QString saveScreenshot(QWidget *widget, const QString &name);

} // namespace qs::test
