/* PNG output through libpng, when the examples were built with it
 * (RENDER_HAVE_LIBPNG); otherwise every write says why it cannot. */
#include <stdio.h>
#include <stdlib.h>

#include "render.h"

#ifdef RENDER_HAVE_LIBPNG
#include <png.h>

bool render_png_available(void)
{
    return true;
}

/* Encodes the rows into f. Kept apart from the caller so that nothing it
 * changes after setjmp is read after a longjmp (libpng reports errors by
 * longjmp). */
static bool encode(FILE *f, png_bytep *rows, png_uint_32 width, png_uint_32 height)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, f);
    png_set_compression_level(png, 9);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    /* No tIME, text or gamma chunks: the bytes depend on the pixels alone. */
    png_write_info(png, info);
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return true;
}

bool render_write_png(const render_canvas *c, const char *path)
{
    const int width = c->width / c->samples, height = c->height / c->samples;
    unsigned char *pixels = render_pixels(c);
    png_bytep *rows = malloc((size_t)height * sizeof *rows);
    FILE *f = pixels && rows ? fopen(path, "wb") : NULL;
    bool ok = f != NULL;
    if (ok) {
        for (int y = 0; y < height; ++y) rows[y] = pixels + 3 * (size_t)y * (size_t)width;
        ok = encode(f, rows, (png_uint_32)width, (png_uint_32)height);
    }
    if (f && fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "cannot write %s\n", path);
    free(rows);
    free(pixels);
    return ok;
}

#else

bool render_png_available(void)
{
    return false;
}

bool render_write_png(const render_canvas *c, const char *path)
{
    (void)c;
    fprintf(stderr, "not writing %s: the examples were built without libpng (install libpng-dev)\n", path);
    return false;
}

#endif
