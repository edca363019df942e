// SPDX-License-Identifier: MIT
/*
 * weft-cl-icd-platform: who answers clGetExtensionFunctionAddressForPlatform.
 *
 * "A return value of NULL indicates that platform is not a valid platform or
 * that the specified extension function does not exist for the platform."
 * The test calls Rusticl's own entry point, from the dispatch table of the
 * platform the vendor library gives out, and the ICD loader's. Rusticl must
 * answer NULL for a NULL platform, for a pointer that is not its platform and
 * for a name it does not know, and the address of its clIcdGetPlatformIDsKHR
 * for its platform. ocl-icd 2.3 replaces a NULL platform with its default
 * platform in every call that takes one (selectPlatformID()), so through the
 * loader a NULL platform gets Rusticl's clIcdGetPlatformIDsKHR all the same:
 * the last check states that, and fails the day the loader passes NULL on or
 * answers NULL itself (then piglit's
 * api/clgetextensionfunctionaddressforplatform passes and must leave
 * tests/piglit/expected).
 *
 *   weft-cl-icd-platform     "N passed, M failed"
 *
 * Run with OCL_ICD_VENDORS naming the directory of Rusticl's .icd file
 * (userspace/cl/run-host sets it).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cl_int (*icd_get_platform_ids_fn)(cl_uint, cl_platform_id *, cl_uint *);

static int passed, failed;

static void
check(bool ok, const char *what)
{
   printf("%s %s\n", ok ? "ok  " : "FAIL", what);
   ok ? passed++ : failed++;
}

/* The library the first .icd file of $OCL_ICD_VENDORS names, as the loader
 * reads it: one path on one line.
 */
static void *
open_vendor_library(void)
{
   const char *dir = getenv("OCL_ICD_VENDORS");
   DIR *d = dir ? opendir(dir) : NULL;
   void *lib = NULL;

   if (!d) {
      fprintf(stderr, "OCL_ICD_VENDORS (%s) is not a directory\n", dir ? dir : "unset");
      return NULL;
   }

   for (struct dirent *e; !lib && (e = readdir(d));) {
      size_t len = strlen(e->d_name);
      char path[4096], library[4096];
      FILE *f;

      if (len < 4 || strcmp(e->d_name + len - 4, ".icd"))
         continue;
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      f = fopen(path, "r");
      if (f && fgets(library, sizeof(library), f)) {
         library[strcspn(library, "\r\n")] = '\0';
         lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
         if (!lib)
            fprintf(stderr, "%s: %s\n", path, dlerror());
      }
      if (f)
         fclose(f);
   }
   closedir(d);
   return lib;
}

int
main(void)
{
   void *vendor = open_vendor_library();
   icd_get_platform_ids_fn vendor_get_ids =
      vendor ? (icd_get_platform_ids_fn)dlsym(vendor, "clIcdGetPlatformIDsKHR") : NULL;
   cl_platform_id platform = NULL;
   cl_uint count = 0;

   check(vendor_get_ids && vendor_get_ids(1, &platform, &count) == CL_SUCCESS &&
         count >= 1 && platform,
         "the vendor library gives out a platform through clIcdGetPlatformIDsKHR");
   if (!platform) {
      printf("%d passed, %d failed\n", passed, failed);
      return 1;
   }

   /* A cl_khr_icd platform starts with its dispatch table. */
   const struct _cl_icd_dispatch *dispatch = *(const struct _cl_icd_dispatch **)platform;
   cl_api_clGetExtensionFunctionAddressForPlatform vendor_address =
      dispatch->clGetExtensionFunctionAddressForPlatform;

   check(vendor_address(platform, "clIcdGetPlatformIDsKHR") == (void *)vendor_get_ids,
         "Rusticl, its platform, clIcdGetPlatformIDsKHR: its own entry point");
   check(vendor_address(platform, "invalid_name") == NULL,
         "Rusticl, its platform, a name it does not know: NULL");
   check(vendor_address(NULL, "clIcdGetPlatformIDsKHR") == NULL,
         "Rusticl, a NULL platform: NULL");
   check(vendor_address((cl_platform_id)&count, "clIcdGetPlatformIDsKHR") == NULL,
         "Rusticl, a pointer that is not its platform: NULL");

   /* The loader's answer for a NULL platform. */
   check(clGetExtensionFunctionAddressForPlatform(NULL, "clIcdGetPlatformIDsKHR") ==
            (void *)vendor_get_ids,
         "the ICD loader, a NULL platform: Rusticl's clIcdGetPlatformIDsKHR, asked for "
         "the loader's default platform in place of NULL");

   printf("%d passed, %d failed\n", passed, failed);
   return failed ? 1 : 0;
}
