// libjpeg error handling shared by the decoder and the encoder.
//
// libjpeg reports fatal errors by calling error_exit, which must not return;
// the stock one calls exit(). We longjmp back to the setjmp in the function
// that drove libjpeg and turn the formatted message into a JS Error there.
// C++ exceptions are not an option: libjpeg's C frames are not compiled with
// unwind tables, so throwing through them is undefined behaviour.
//
// Rule for callers: the function that calls setjmp(manager.jump) must keep no
// objects with non-trivial destructors alive across libjpeg calls, because
// longjmp skips destructors.
#pragma once

#include <csetjmp>
#include <cstddef>
#include <cstdio>  // jpeglib.h uses FILE and size_t without including them

#include <jpeglib.h>

namespace beton {

struct JpegErrorManager {
  jpeg_error_mgr pub;  // first member: libjpeg only sees a jpeg_error_mgr*
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];  // the fatal error, valid after longjmp
  // Warnings (corrupt entropy data, premature end of file, ...) do not stop
  // libjpeg: it substitutes grey data and carries on, exactly as TurboJPEG
  // does for FFCV. We keep the first message so callers can surface it.
  int warnings;
  char first_warning[JMSG_LENGTH_MAX];
};

// Resets `manager` and returns the pointer to store in cinfo.err. Messages
// are captured, never printed to stderr.
jpeg_error_mgr* InitJpegErrorManager(JpegErrorManager* manager);

}  // namespace beton
