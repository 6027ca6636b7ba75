#ifndef CFREETYPE_SHIM_H
#define CFREETYPE_SHIM_H
#include <ft2build.h>
#include FT_FREETYPE_H

/// The glyph of `code` loaded and rendered as an 8-bit coverage bitmap (FT_LOAD_RENDER is a macro Swift cannot see).
static inline FT_Error memora_ft_load_rendered_char(FT_Face face, FT_ULong code) {
    return FT_Load_Char(face, code, FT_LOAD_RENDER);
}

/// Whether `face` has a kerning table (FT_HAS_KERNING is a macro).
static inline int memora_ft_has_kerning(FT_Face face) {
    return FT_HAS_KERNING(face) ? 1 : 0;
}
#endif
