# pmixev configure checks.

# AX_PMIXEV_WARNINGS: -Wall -Wextra always; -Werror for development builds
# (a git checkout), or when --enable-werror is given.
AC_DEFUN([AX_PMIXEV_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror],
      [treat warnings as errors (default: yes in a git checkout)])],
    [], [AS_IF([test -e "$srcdir/.git"], [enable_werror=yes], [enable_werror=no])])
  WARNING_CFLAGS="-std=gnu11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 -Wno-unused-parameter"
  AS_IF([test "x$enable_werror" = xyes], [WARNING_CFLAGS="$WARNING_CFLAGS -Werror"])
  AC_SUBST([WARNING_CFLAGS])
])

# AX_PMIXEV_SANITIZERS: --enable-sanitizers builds everything with ASan+UBSan.
AC_DEFUN([AX_PMIXEV_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers],
      [build with AddressSanitizer and UndefinedBehaviorSanitizer (unit tests)])],
    [], [enable_sanitizers=no])
  SANITIZER_CFLAGS=
  SANITIZER_LDFLAGS=
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SANITIZER_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    SANITIZER_LDFLAGS="-fsanitize=address,undefined"
    save_CFLAGS=$CFLAGS; save_LDFLAGS=$LDFLAGS
    CFLAGS="$CFLAGS $SANITIZER_CFLAGS"; LDFLAGS="$LDFLAGS $SANITIZER_LDFLAGS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [],
      [AC_MSG_ERROR([the compiler cannot build with -fsanitize=address,undefined])])
    CFLAGS=$save_CFLAGS; LDFLAGS=$save_LDFLAGS
  ])
  AS_IF([test "x$enable_sanitizers" = xyes], [pmixev_san=1], [pmixev_san=0])
  AC_DEFINE_UNQUOTED([PMIXEV_SANITIZERS], [$pmixev_san],
    [1 in a build with ASan+UBSan: programs started as the job owner get
     the runtime (ownerhelper/owner_env.h)])
  AC_SUBST([SANITIZER_CFLAGS])
  AC_SUBST([SANITIZER_LDFLAGS])
])

# PMIXEV_CHECK_SLURM: Slurm public headers, the version they describe, whether
# slurm-headers-compat/ supports it, and where plugins go.
AC_DEFUN([PMIXEV_CHECK_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX],
      [Slurm installation prefix (headers in PREFIX/include/slurm)])],
    [], [with_slurm=/usr])
  AS_IF([test "x$with_slurm" = xno],
    [AC_MSG_ERROR([pmixev is a Slurm plugin bundle; it cannot be built --without-slurm])])
  dnl -I/usr/include would reorder the compiler's system include dirs.
  AS_IF([test "x$with_slurm" = x/usr], [SLURM_CPPFLAGS=],
    [SLURM_CPPFLAGS="-I$with_slurm/include"])
  save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  AC_CHECK_HEADERS([slurm/slurm_version.h slurm/slurm.h slurm/spank.h], [],
    [AC_MSG_ERROR([Slurm header $ac_header not found under $with_slurm/include.
Install Slurm's development headers (Debian: apt-get install libslurm-dev)
or point configure at them with --with-slurm=PREFIX.])])
  AC_MSG_CHECKING([for the Slurm version of these headers])
  AC_COMPUTE_INT([slurm_version_number], [SLURM_VERSION_NUMBER],
    [#include <slurm/slurm_version.h>],
    [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER from slurm/slurm_version.h])])
  slurm_major=`expr $slurm_version_number / 65536`
  slurm_minor=`expr \( $slurm_version_number / 256 \) % 256`
  slurm_micro=`expr $slurm_version_number % 256`
  SLURM_VERSION_STRING=`printf '%d.%02d.%d' $slurm_major $slurm_minor $slurm_micro`
  SLURM_VERSION_HEX=`printf '0x%06x' $slurm_version_number`
  AC_MSG_RESULT([$SLURM_VERSION_STRING])
  AC_MSG_CHECKING([whether slurm-headers-compat supports Slurm $SLURM_VERSION_STRING])
  AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
#include "$srcdir/slurm-headers-compat/slurm_compat.h"
int pmixev_conftest;
  ]])], [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([Slurm $SLURM_VERSION_STRING is not supported by pmixev $PACKAGE_VERSION.
Supported: 22.05.x and 24.11.x; 26.05.x builds. A new release is added in slurm-headers-compat/ (see its README).])])
  dnl Releases whose whole integration suite passes (doc/admin-guide.md, Slurm generations).
  AS_CASE([$slurm_major.$slurm_minor],
    [22.5 | 24.11], [],
    [AC_MSG_WARN([Slurm $SLURM_VERSION_STRING: pmixev builds and passes its unit tests here, but its integration suite does not yet pass on a running cluster of this release (see doc/admin-guide.md, Slurm generations).])])
  CPPFLAGS=$save_CPPFLAGS
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_VERSION_STRING])
  AC_SUBST([SLURM_VERSION_HEX])

  dnl Where the host's Slurm keeps its plugins: the directory holding auth_munge.so.
  multiarch=`$CC -print-multiarch 2>/dev/null`
  SLURM_SYS_PLUGINDIR=
  for d in "$with_slurm/lib/$multiarch/slurm-wlm" "$with_slurm/lib/$multiarch/slurm" \
           "$with_slurm/lib64/slurm" "$with_slurm/lib/slurm"; do
    AS_IF([test -z "$SLURM_SYS_PLUGINDIR" && test -f "$d/auth_munge.so"],
      [SLURM_SYS_PLUGINDIR=$d])
  done
  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR],
      [install the plugins into DIR (default: the host Slurm's plugin directory)])],
    [SLURM_PLUGINDIR=$withval],
    [AS_IF([test -n "$SLURM_SYS_PLUGINDIR"], [SLURM_PLUGINDIR=$SLURM_SYS_PLUGINDIR],
      [SLURM_PLUGINDIR='${libdir}/slurm'
       AC_MSG_WARN([Slurm's plugin directory not found under $with_slurm; installing into $SLURM_PLUGINDIR])])])
  AC_SUBST([SLURM_PLUGINDIR])
  AC_SUBST([SLURM_SYS_PLUGINDIR])
])

# PMIXEV_CHECK_PMIX: OpenPMIx via pkg-config (--with-pmix=PREFIX adds PREFIX's .pc dirs).
AC_DEFUN([PMIXEV_CHECK_PMIX], [
  AC_ARG_WITH([pmix],
    [AS_HELP_STRING([--with-pmix=PREFIX], [OpenPMIx installation prefix])],
    [], [with_pmix=yes])
  AS_IF([test "x$with_pmix" = xno],
    [AC_MSG_ERROR([pmixev embeds the OpenPMIx server; it cannot be built --without-pmix])])
  AS_IF([test "x$with_pmix" != xyes],
    [PKG_CONFIG_PATH="$with_pmix/lib/pkgconfig:$with_pmix/lib64/pkgconfig:$with_pmix/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
     export PKG_CONFIG_PATH])
  PKG_CHECK_MODULES([PMIX], [pmix >= 4.2], [],
    [AC_MSG_ERROR([OpenPMIx >= 4.2 not found ($PMIX_PKG_ERRORS).
Install it (Debian: apt-get install libpmix-dev) or use --with-pmix=PREFIX.])])
  PMIX_VERSION_STRING=`$PKG_CONFIG --modversion pmix`
  save_CPPFLAGS=$CPPFLAGS
  CPPFLAGS="$CPPFLAGS $PMIX_CFLAGS"
  AC_CHECK_HEADER([pmix_server.h], [],
    [AC_MSG_ERROR([pmix_server.h not found with $PMIX_CFLAGS])])
  CPPFLAGS=$save_CPPFLAGS
  AC_SUBST([PMIX_VERSION_STRING])
])

# PMIXEV_CHECK_LIBS: hwloc, libevent (+pthreads), munge, and cmocka for unit tests.
AC_DEFUN([PMIXEV_CHECK_LIBS], [
  PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0], [],
    [AC_MSG_ERROR([hwloc >= 2.0 not found (Debian: apt-get install libhwloc-dev)])])
  PKG_CHECK_MODULES([LIBEVENT], [libevent >= 2.1 libevent_pthreads >= 2.1], [],
    [AC_MSG_ERROR([libevent and libevent_pthreads >= 2.1 not found (Debian: apt-get install libevent-dev)])])
  AC_CHECK_HEADER([munge.h], [],
    [AC_MSG_ERROR([munge.h not found (Debian: apt-get install libmunge-dev)])])
  AC_CHECK_LIB([munge], [munge_encode], [MUNGE_LIBS=-lmunge],
    [AC_MSG_ERROR([libmunge not found (Debian: apt-get install libmunge-dev)])])
  AC_SUBST([MUNGE_LIBS])
  dnl The owner helper talks to slurmctld through the public libslurm API.
  AS_IF([test "x$with_slurm" = x/usr], [SLURM_LDFLAGS=],
    [SLURM_LDFLAGS="-L$with_slurm/lib"])
  save_LDFLAGS=$LDFLAGS
  LDFLAGS="$LDFLAGS $SLURM_LDFLAGS"
  AC_CHECK_LIB([slurm], [slurm_load_job], [SLURM_LIBS="$SLURM_LDFLAGS -lslurm"],
    [AC_MSG_ERROR([libslurm not found (Debian: apt-get install libslurm-dev)])])
  LDFLAGS=$save_LDFLAGS
  AC_SUBST([SLURM_LIBS])
  AC_PATH_PROG([MPICC], [mpicc], [no])
  AS_IF([test "x$MPICC" = xno],
    [AC_MSG_WARN([mpicc not found: the Open MPI test programs will not be built (Debian: apt-get install libopenmpi-dev)])])
  AM_CONDITIONAL([HAVE_MPICC], [test "x$MPICC" != xno])
  dnl Fault-tolerant MPI (ULFM, Open MPI 5): examples/ulfm_survivor.
  pmixev_ulfm=no
  AS_IF([test "x$MPICC" != xno], [
    AC_MSG_CHECKING([whether $MPICC has ULFM (MPIX_Comm_shrink)])
    cat >conftest_ulfm.c <<_PMIXEV_EOF
#include <mpi.h>
#include <mpi-ext.h>
int main(void)
{
	MPI_Comm c;
	return MPIX_Comm_shrink(MPI_COMM_WORLD, &c);
}
_PMIXEV_EOF
    AS_IF([$MPICC -Werror=implicit-function-declaration conftest_ulfm.c \
        -o conftest_ulfm >&AS_MESSAGE_LOG_FD 2>&1], [pmixev_ulfm=yes])
    rm -f conftest_ulfm conftest_ulfm.c
    AC_MSG_RESULT([$pmixev_ulfm])])
  AM_CONDITIONAL([HAVE_ULFM], [test "x$pmixev_ulfm" = xyes])
  PKG_CHECK_MODULES([CMOCKA], [cmocka >= 1.1], [have_cmocka=yes],
    [have_cmocka=no
     AC_MSG_WARN([cmocka not found: 'make check' will fail (Debian: apt-get install libcmocka-dev)])])
  AM_CONDITIONAL([HAVE_CMOCKA], [test "x$have_cmocka" = xyes])
])
