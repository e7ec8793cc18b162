#pragma once
// Icons from resources/icons (compiled in via quota-studio.qrc). Monochrome icons are tinted
// with the palette's text colour, so they stay visible on light and dark themes.
#include <QIcon>
#include <QString>

namespace qs {

QIcon icon(const QString &name);

// Registers the compiled-in resources; qs_ui is a static library, so its resource object would
// otherwise not be linked. Call once, after QApplication exists.
void initResources();

} // namespace qs
