// See jpeg_error.h for why errors leave libjpeg through longjmp.

#include "jpeg_error.h"

namespace beton {
namespace {

JpegErrorManager* ManagerOf(j_common_ptr cinfo) {
  // Valid because `pub` is the first member of the standard-layout manager.
  return reinterpret_cast<JpegErrorManager*>(cinfo->err);
}

[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  JpegErrorManager* manager = ManagerOf(cinfo);
  (*cinfo->err->format_message)(cinfo, manager->message);
  std::longjmp(manager->jump, 1);
}

void EmitMessage(j_common_ptr cinfo, int msg_level) {
  // msg_level >= 0 are trace messages, which we never want.
  if (msg_level >= 0) return;
  JpegErrorManager* manager = ManagerOf(cinfo);
  if (manager->warnings == 0) {
    (*cinfo->err->format_message)(cinfo, manager->first_warning);
  }
  manager->warnings++;
  cinfo->err->num_warnings++;
}

void OutputMessage(j_common_ptr /*cinfo*/) {
  // The stock implementation prints to stderr; messages are reported to JS.
}

}  // namespace

jpeg_error_mgr* InitJpegErrorManager(JpegErrorManager* manager) {
  jpeg_error_mgr* err = jpeg_std_error(&manager->pub);
  err->error_exit = ErrorExit;
  err->emit_message = EmitMessage;
  err->output_message = OutputMessage;
  manager->message[0] = '\0';
  manager->warnings = 0;
  manager->first_warning[0] = '\0';
  return err;
}

}  // namespace beton
